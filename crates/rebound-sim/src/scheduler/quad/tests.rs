use super::*;
use crate::scheduler::HeapScheduler;
use proptest::prelude::*;

/// Interleaved inserts, pops and retains on the 4-ary heap and on the reference heap: every
/// peek, pop and length the same.
fn same_as_heap(ops: &[(u64, u8)], any_time: bool) -> Result<(), TestCaseError> {
    let (mut q, mut heap) = (QuadHeap::default(), HeapScheduler::default());
    let mut now = 0u64;
    for (seq, &(dt, pops)) in ops.iter().enumerate() {
        let at = if any_time { dt } else { now.saturating_add(dt) };
        q.insert(at, seq as u64, seq);
        heap.insert(at, seq as u64, seq);
        if pops == 255 {
            q.retain(&mut |x: &usize| x % 3 != 0);
            heap.retain(&mut |x: &usize| x % 3 != 0);
        }
        for _ in 0..pops % 4 {
            prop_assert_eq!(q.peek(), heap.peek());
            let got = q.pop();
            prop_assert_eq!(got, heap.pop());
            if let Some((t, _, _)) = got {
                now = t;
            }
        }
        prop_assert_eq!(q.len(), heap.len());
    }
    while let Some(e) = heap.pop() {
        prop_assert_eq!(q.pop(), Some(e));
    }
    prop_assert_eq!(q.pop(), None);
    Ok(())
}

proptest! {
    #[test]
    fn pops_in_heap_order_in_a_simulation(ops in proptest::collection::vec(
        (prop_oneof![0u64..10, 0u64..1_000, 0u64..1_000_000_000, Just(u64::MAX)], prop_oneof![any::<u8>(), Just(255u8)]),
        1..400,
    )) {
        same_as_heap(&ops, false)?;
    }

    #[test]
    fn pops_in_heap_order_whatever_the_times(ops in proptest::collection::vec(
        (prop_oneof![0u64..100, any::<u64>(), Just(u64::MAX)], any::<u8>()),
        1..400,
    )) {
        same_as_heap(&ops, true)?;
    }

    /// Keys give back the time and number (kept at their maxima) and order as they do.
    #[test]
    fn keys_order_as_time_then_sequence(a in (any::<u64>(), any::<u64>()), b in (any::<u64>(), any::<u64>())) {
        let clamp = |(t, s): (u64, u64)| (t.min(MAX_TIME), s.min(MAX_SEQ));
        let (x, y) = (pack(a.0, a.1), pack(b.0, b.1));
        prop_assert_eq!(unpack(x), clamp(a));
        prop_assert_eq!(x.cmp(&y), clamp(a).cmp(&clamp(b)));
    }
}

/// A sorted run appended without sifts pops in order; drained, it gives back every event.
#[test]
fn a_sorted_run_goes_in_and_out_whole() {
    let mut q = QuadHeap::default();
    for i in 0..100u64 {
        q.push_sorted(i / 3, i, i);
    }
    for i in 0..60u64 {
        assert_eq!(q.pop(), Some((i / 3, i, i)));
    }
    let mut got: Vec<u64> = q.drain().map(|(_, _, e)| e).collect();
    got.sort_unstable();
    assert_eq!(got, (60..100).collect::<Vec<_>>());
    assert_eq!(q.len(), 0);
}
