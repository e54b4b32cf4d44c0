use super::*;
use crate::scheduler::HeapScheduler;
use proptest::prelude::*;

/// Interleaved inserts, pops and retains, new events never before the last popped one (as in a
/// simulation) or anywhere (`any_time`), compared with the heap.
fn same_as_heap(ops: &[(u64, u8)], any_time: bool) -> Result<(), TestCaseError> {
    let (mut ladder, mut heap) = (LadderScheduler::default(), HeapScheduler::default());
    let mut now = 0u64;
    for (seq, &(dt, pops)) in ops.iter().enumerate() {
        let at = if any_time { dt } else { now.saturating_add(dt) };
        ladder.insert(at, seq as u64, seq);
        heap.insert(at, seq as u64, seq);
        if pops == 255 {
            // Now and then, drop the events of odd numbers (issue 34: clearing dead timeouts).
            ladder.retain(&mut |x: &usize| x % 2 == 0);
            heap.retain(&mut |x: &usize| x % 2 == 0);
            prop_assert_eq!(ladder.len(), heap.len());
        }
        for _ in 0..pops % 3 {
            prop_assert_eq!(ladder.peek(), heap.peek());
            let got = ladder.pop();
            prop_assert_eq!(got, heap.pop());
            if let Some((t, _, _)) = got {
                now = t;
            }
        }
        prop_assert_eq!(ladder.len(), heap.len());
    }
    while let Some(e) = heap.pop() {
        prop_assert_eq!(ladder.pop(), Some(e));
    }
    prop_assert_eq!(ladder.pop(), None);
    Ok(())
}

proptest! {
    #[test]
    fn pops_in_heap_order_in_a_simulation(ops in proptest::collection::vec(
        (prop_oneof![0u64..10, 0u64..1_000, 0u64..1_000_000_000, Just(u64::MAX)], prop_oneof![any::<u8>(), Just(255u8)]),
        1..600,
    )) {
        same_as_heap(&ops, false)?;
    }

    #[test]
    fn pops_in_heap_order_whatever_the_times(ops in proptest::collection::vec(
        (prop_oneof![0u64..100, any::<u64>(), Just(u64::MAX), Just(u64::MAX - 1)], any::<u8>()),
        1..600,
    )) {
        same_as_heap(&ops, true)?;
    }
}

#[test]
fn many_events_at_one_instant_keep_their_order_and_a_bounded_ladder() {
    let mut q = LadderScheduler::default();
    for i in 0..10_000u64 {
        q.insert(5 + i % 2, i, i);
    }
    let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(_, _, i)| i)).collect();
    let want: Vec<u64> = (0..10_000).step_by(2).chain((1..10_000).step_by(2)).collect();
    assert_eq!(order, want);
    assert!(q.spare.len() <= MAX_RUNGS);
}

/// Events landing in the current bucket's range after it was taken go to the late heap past
/// [`SORTED_INSERT`]: a run of them costs O(log n) each, not a move of the whole bottom, and
/// they still leave in `(time, sequence)` order.
#[test]
fn a_crowded_bottom_spills_into_the_late_heap_in_order() {
    let mut q = LadderScheduler::default();
    let mut heap = HeapScheduler::default();
    // A wide first bucket: two events a day apart.
    for (i, at) in [0u64, 86_400_000_000_000].into_iter().enumerate() {
        q.insert(at, i as u64, i as u64);
        heap.insert(at, i as u64, i as u64);
    }
    assert_eq!(q.pop(), heap.pop());
    for i in 2..100_000u64 {
        let at = 1 + (i * 7919) % 1_000_000;
        q.insert(at, i, i);
        heap.insert(at, i, i);
    }
    assert!(q.late.len() > 90_000, "{q:?}");
    while let Some(e) = heap.pop() {
        assert_eq!(q.pop(), Some(e));
    }
    assert_eq!(q.pop(), None);
}

/// A bucket's header fits one cache line wherever it sits in its rung (issue 40).
#[test]
fn a_bucket_never_straddles_two_cache_lines() {
    use std::mem::{align_of, size_of};
    assert_eq!((size_of::<bucket::Bucket<u64>>(), align_of::<bucket::Bucket<u64>>()), (32, 32));
}
