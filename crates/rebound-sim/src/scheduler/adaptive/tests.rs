use super::*;
use crate::scheduler::HeapScheduler;
use proptest::prelude::*;

/// What a run of operations did to the adaptive scheduler: switches to the ladder and back.
#[derive(Default, Debug)]
struct Switches {
    up: usize,
    down: usize,
}

/// Runs `ops` — a burst of `n` inserts `dt` apart from the last popped time (or at `dt` when
/// `any_time`), then `pops` pops, a retain of even items at `pops == 255` — on the adaptive
/// scheduler with thresholds `(down, up)` and on the heap, checking every pop, peek and length.
fn same_as_heap(
    ops: &[(u64, u8, u8)],
    (down, up): (usize, usize),
    any_time: bool,
) -> Result<Switches, TestCaseError> {
    let (mut a, mut heap) = (AdaptiveScheduler::with_thresholds(down, up), HeapScheduler::default());
    let (mut now, mut seq, mut sw) = (0u64, 0u64, Switches::default());
    let mut track = |a: &AdaptiveScheduler<u64>, was: bool| match (was, a.on_ladder()) {
        (false, true) => sw.up += 1,
        (true, false) => sw.down += 1,
        _ => {}
    };
    for &(dt, n, pops) in ops {
        for k in 0..u64::from(n % 16) {
            let at = if any_time { dt.wrapping_mul(k + 1) } else { now.saturating_add(dt.saturating_mul(k)) };
            seq += 1;
            let was = a.on_ladder();
            a.insert(at, seq, seq);
            heap.insert(at, seq, seq);
            track(&a, was);
        }
        if pops == 255 {
            let was = a.on_ladder();
            a.retain(&mut |x: &u64| x % 2 == 0);
            heap.retain(&mut |x: &u64| x % 2 == 0);
            track(&a, was);
        }
        for _ in 0..pops % 24 {
            prop_assert_eq!(a.peek(), heap.peek());
            let was = a.on_ladder();
            let got = a.pop();
            track(&a, was);
            prop_assert_eq!(got, heap.pop());
            if let Some((t, _, _)) = got {
                now = t;
            }
        }
        prop_assert_eq!(a.len(), heap.len());
    }
    while let Some(e) = heap.pop() {
        let was = a.on_ladder();
        prop_assert_eq!(a.pop(), Some(e));
        track(&a, was);
    }
    prop_assert_eq!(a.pop(), None);
    Ok(sw)
}

/// Bursts of inserts and of pops, so that the number waiting crosses small thresholds often.
fn bursts(times: impl Strategy<Value = u64>) -> impl Strategy<Value = Vec<(u64, u8, u8)>> {
    proptest::collection::vec((times, any::<u8>(), prop_oneof![any::<u8>(), Just(255u8), Just(0u8)]), 1..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Across switches to the ladder and back, events come out as from the heap alone: by
    /// time, then sequence number — in a simulation (nothing before the last popped event) ...
    #[test]
    fn pops_in_heap_order_across_switches(
        ops in bursts(prop_oneof![0u64..10, 0u64..1_000, 0u64..1_000_000_000, Just(u64::MAX)]),
        down in 1usize..24,
        gap in 1usize..40,
    ) {
        same_as_heap(&ops, (down, down + gap), false)?;
    }

    /// ... and whatever the times.
    #[test]
    fn pops_in_heap_order_across_switches_whatever_the_times(
        ops in bursts(prop_oneof![0u64..100, any::<u64>(), Just(u64::MAX)]),
        down in 0usize..24,
        gap in 1usize..40,
    ) {
        same_as_heap(&ops, (down, down + gap), true)?;
    }
}

/// A load that rises past `up` and falls below `down` again and again switches both ways each
/// time, and keeps the heap's order (a fixed case: the proptests do not promise a switch).
#[test]
fn a_swinging_load_switches_both_ways_in_heap_order() {
    // Rounds of 200 inserts of one time pattern, then 190 pops: the number waiting climbs
    // by 10 a round through thresholds (8, 64) and drains at the end.
    let round: Vec<(u64, u8, u8)> =
        (0..20).map(|i| (i * 7919 % 1000, 10, 0)).chain((0..10).map(|_| (0, 0, 19))).collect();
    let ops: Vec<_> = round.iter().copied().cycle().take(round.len() * 30).collect();
    let sw = same_as_heap(&ops, (8, 64), false).expect("same order as the heap");
    assert!(sw.up >= 1 && sw.down >= 1, "{sw:?}");
    // Swings of 0 → 150 → 0 waiting cross both thresholds every time.
    let swing: Vec<(u64, u8, u8)> =
        (0..10).map(|i| (i * 37 % 100, 15, 0)).chain((0..7).map(|_| (0, 0, 23))).collect();
    let ops: Vec<_> = swing.iter().copied().cycle().take(swing.len() * 12).collect();
    let sw = same_as_heap(&ops, (8, 64), false).expect("same order as the heap");
    assert!(sw.up >= 10 && sw.down >= 10, "{sw:?}");
}

#[test]
#[should_panic(expected = "down (5) must be below up (5)")]
fn thresholds_without_a_gap_are_refused() {
    let _ = AdaptiveScheduler::<u8>::with_thresholds(5, 5);
}
