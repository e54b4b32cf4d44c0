//! Row (d): the async forms of rows (b) and (c) on a tokio current-thread runtime.
//!
//! Same policies as [`crate::blocking`]; criterion drives many calls per `block_on`, so the
//! runtime's entry cost is not measured. Sleeping:
//! - rebound: `.sleeper(NoSleep)` (a ready future).
//! - backon: `.sleep(|_| ready(()))`, a custom sleeper.
//! - backoff: `future::Retry::new` with a custom `Sleeper` whose future is ready.
//! - tokio-retry2: no way to inject a sleeper; every retry creates a tokio `Sleep` for its zero
//!   delay (a timer registration), so its fail-twice figure includes that.
//! - exponential-backoff: the documented loop, with `.await` on the operation and no sleep.

use crate::blocking::{backoff_policy, backon_builder, exponential_backoff_config, rebound_policy};
use crate::{flaky, Busy, CAP};
use backon::Retryable;
use criterion::Criterion;
use std::future::{ready, Future, Ready};
use std::time::Duration;

/// Registers the two async groups.
pub fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    group(c, &rt, "d_async_success", 0);
    group(c, &rt, "d_async_fail_twice", 2);
}

/// An async operation that fails `fails` times, then succeeds.
fn flaky_async(fails: u32) -> impl FnMut() -> Ready<Result<u32, Busy>> {
    let mut op = flaky(fails);
    move || ready(op())
}

/// backoff's sleeper seam, with a future that is ready at once.
struct ReadySleeper;

impl backoff::future::Sleeper for ReadySleeper {
    type Sleep = Ready<()>;
    fn sleep(&self, _: Duration) -> Ready<()> {
        ready(())
    }
}

fn group(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, fails: u32) {
    let mut g = c.benchmark_group(name);

    let policy = rebound_policy();
    g.bench_function("rebound", |b| {
        b.to_async(rt).iter(|| {
            rebound_retry::retry_async(policy.backoff(), flaky_async(fails))
                .sleeper(rebound_retry::NoSleep)
                .call()
        })
    });

    let builder = backon_builder();
    g.bench_function("backon", |b| {
        b.to_async(rt).iter(|| flaky_async(fails).retry(builder).sleep(|_: Duration| ready(())))
    });

    g.bench_function("backoff", |b| {
        b.to_async(rt).iter(|| {
            let mut op = flaky_async(fails);
            let op = move || ready(op().into_inner().map_err(backoff::Error::transient));
            backoff::future::Retry::new(ReadySleeper, backoff_policy(), |_: Busy, _: Duration| {}, op)
        })
    });

    if fails > 0 {
        // Each retry really sleeps (tokio's timer rounds a zero delay up to its 1 ms tick):
        // fewer samples keep the run short.
        g.sample_size(10);
    }
    g.bench_function("tokio-retry2", |b| {
        b.to_async(rt).iter(|| {
            let strategy = tokio_retry2::strategy::ExponentialFactorBackoff::from_millis(0, 2.0)
                .max_delay(CAP)
                .map(tokio_retry2::strategy::jitter_with_bounds(0.0, 1.0))
                .take(3);
            let mut op = flaky_async(fails);
            let op = move || ready(op().into_inner().map_err(tokio_retry2::RetryError::transient));
            tokio_retry2::Retry::spawn(strategy, op)
        })
    });
    g.sample_size(100);

    let config = exponential_backoff_config();
    g.bench_function("exponential-backoff", |b| {
        b.to_async(rt).iter(|| exponential_backoff_call(&config, flaky_async(fails)))
    });

    g.finish();
}

/// The retry loop exponential-backoff's documentation shows, async, without sleeping.
async fn exponential_backoff_call<F, Fut>(
    config: &exponential_backoff::Backoff,
    mut op: F,
) -> Result<u32, Busy>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<u32, Busy>>,
{
    for delay in config {
        match op().await {
            Ok(v) => return Ok(v),
            Err(e) => match delay {
                Some(d) => {
                    std::hint::black_box(d);
                }
                None => return Err(e),
            },
        }
    }
    Err(Busy)
}
