//! Retrying allocates nothing per attempt: a counting global allocator watches whole calls of
//! the blocking and async executors, with and without jitter, that fail many times.
//!
//! The counter is per thread, so the test harness's own threads do not disturb it.
#![allow(unsafe_code)] // the GlobalAlloc impl below; the library itself forbids unsafe code

#[cfg(feature = "tokio")]
use rebound_retry::retry_async;
use rebound_retry::{retry, Backoff, Jitter, NoSleep, Policy, RetryCounters};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made on this thread while `f` runs.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let value = f();
    (value, ALLOCATIONS.with(Cell::get) - before)
}

fn policy(jitter: Jitter, max_retries: u64) -> Policy {
    Policy::exponential(Duration::from_millis(1), 2.0)
        .cap(Duration::from_secs(1))
        .jitter(jitter)
        .max_retries(max_retries)
        .build()
        .unwrap()
}

/// An operation that fails `fails` times, then succeeds.
fn flaky(fails: u32) -> impl FnMut() -> Result<u32, &'static str> {
    let mut calls = 0;
    move || {
        calls += 1;
        if calls <= fails {
            Err("busy")
        } else {
            Ok(calls)
        }
    }
}

#[test]
fn the_counter_sees_allocations() {
    let (v, n) = allocations(|| vec![1u8; 16]);
    assert_eq!(v.len(), 16);
    assert!(n >= 1, "a Vec allocation was not counted");
}

#[test]
fn blocking_calls_allocate_nothing() {
    for jitter in [Jitter::None, Jitter::Full, Jitter::Decorrelated, Jitter::normal(0.2).unwrap()] {
        let policy = policy(jitter, 200);
        // Warm-up: the first entropy-seeded backoff on a thread initialises rand's thread RNG.
        let _ = retry(policy.backoff(), flaky(3)).sleeper(NoSleep).call();
        for fails in [0, 1, 2, 100] {
            let (result, n) = allocations(|| retry(policy.backoff(), flaky(fails)).sleeper(NoSleep).call());
            assert_eq!(result, Ok(fails + 1));
            assert_eq!(n, 0, "{jitter:?}, {fails} failures: {n} allocations");
        }
        // Giving up allocates nothing either, and neither do metrics or a notify hook.
        let counters = RetryCounters::new();
        let mut notified = 0;
        let (result, n) = allocations(|| {
            retry(policy.backoff(), flaky(u32::MAX))
                .sleeper(NoSleep)
                .metrics(&counters)
                .notify(|_: &rebound_retry::RetryEvent<'_, &str>| notified += 1)
                .call()
        });
        assert_eq!(result.unwrap_err().attempts, 201);
        assert_eq!(n, 0, "{jitter:?}, giving up: {n} allocations");
        assert_eq!(notified, 200);
    }
}

#[cfg(feature = "tokio")]
#[test]
fn async_calls_allocate_nothing() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    for jitter in [Jitter::None, Jitter::Full] {
        let policy = policy(jitter, 200);
        let counts: Vec<(u32, u64)> = rt.block_on(async {
            let op = |fails| {
                let mut op = flaky(fails);
                move || std::future::ready(op())
            };
            let _ = retry_async(policy.backoff(), op(3)).sleeper(NoSleep).call().await;
            let mut counts = Vec::new();
            for fails in [0, 2, 100] {
                let before = ALLOCATIONS.with(Cell::get);
                let result = retry_async(policy.backoff(), op(fails)).sleeper(NoSleep).call().await;
                let n = ALLOCATIONS.with(Cell::get) - before;
                assert_eq!(result, Ok(fails + 1));
                counts.push((fails, n));
            }
            counts
        });
        for (fails, n) in counts {
            assert_eq!(n, 0, "{jitter:?}, {fails} failures: {n} allocations");
        }
    }
}

#[test]
fn drawing_delays_allocates_nothing() {
    for jitter in [
        Jitter::None,
        Jitter::Full,
        Jitter::Equal,
        Jitter::Thain,
        Jitter::normal_abs(Duration::from_millis(5)),
    ] {
        let policy = policy(jitter, 10_000);
        let mut backoff = policy.backoff();
        let _ = backoff.next_delay(); // seeds the jitter RNG (and rand's thread RNG once)
        let (sum, n) = allocations(|| (0..9_999).filter_map(|_| backoff.next_delay()).sum::<Duration>());
        assert!(sum > Duration::ZERO);
        assert_eq!(n, 0, "{jitter:?}: {n} allocations");
    }
}
