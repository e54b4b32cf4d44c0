use super::*;
use proptest::prelude::*;

/// With a full queue, every event of a lane but its first few is shown far, then near,
/// before it is popped; every event of the ladder far at least.
#[test]
fn every_event_is_looked_at_far_then_near() {
    let mut q = EventQueue::with_scheduler(crate::ladder::LadderScheduler::default());
    for i in 0..200u64 {
        q.push_lane(0, i * 10, i);
        q.push(i * 10 + 5, 1000 + i);
    }
    let mut looks: std::collections::HashMap<u64, Vec<Ahead>> = Default::default();
    while let Some((_, e)) = q.pop_ahead(|&e, look| looks.entry(e).or_default().push(look)) {
        let seen = looks.remove(&e).unwrap_or_default();
        if e < 1000 {
            // A lane: one long list.
            if e >= FAR as u64 {
                assert_eq!(seen, [Ahead::Far, Ahead::Near], "event {e}");
            }
        } else {
            // The ladder, a sorted bucket at a time: the first events of a bucket are
            // shown far only, when it is sorted.
            assert!(matches!(seen[..], [Ahead::Far] | [Ahead::Far, Ahead::Near]), "event {e}: {seen:?}");
        }
    }
    assert!(looks.is_empty());
}

proptest! {
    /// Lanes or not, ladder or heap, events come out in (time, scheduling order), as from a
    /// heap alone.
    #[test]
    fn lanes_never_change_the_order(ops in proptest::collection::vec((0u64..50, 0usize..3), 1..200)) {
        let mut with_lanes = EventQueue::new();
        let mut heap_only = EventQueue::with_heap();
        for (i, &(at, where_)) in ops.iter().enumerate() {
            if where_ < LANES { with_lanes.push_lane(where_, at, i) } else { with_lanes.push(at, i) }
            heap_only.push(at, i);
        }
        prop_assert_eq!(with_lanes.len(), ops.len());
        while let Some(e) = heap_only.pop() {
            prop_assert_eq!(with_lanes.pop(), Some(e));
        }
        prop_assert!(with_lanes.is_empty());
    }

    /// `pop_ahead` pops what `pop` pops and shows only events still waiting, also as new
    /// events are pushed between pops (a simulation's pattern: each pop schedules a later
    /// event).
    #[test]
    fn looking_ahead_never_changes_the_order(
        ops in proptest::collection::vec((0u64..400, 0usize..3, any::<bool>()), 1..300)
    ) {
        let (mut q, mut heap) = (EventQueue::new(), EventQueue::with_heap());
        let mut now = 0;
        let mut popped = std::collections::HashSet::new();
        for (i, &(dt, where_, pop)) in ops.iter().enumerate() {
            let at = if where_ < LANES { now + 50 } else { now + dt };
            if where_ < LANES { q.push_lane(where_, at, i) } else { q.push(at, i) }
            heap.push(at, i);
            if !pop {
                continue;
            }
            let mut late = None;
            let got = q.pop_ahead(|&e, _| {
                if popped.contains(&e) {
                    late = Some(e);
                }
            });
            prop_assert_eq!(late, None);
            prop_assert_eq!(got, heap.pop());
            if let Some((t, e)) = got {
                now = t;
                popped.insert(e);
            }
        }
        while let Some(e) = heap.pop() {
            prop_assert_eq!(q.pop_ahead(|_, _| {}), Some(e));
        }
    }
}

/// Dropping a lane's front stops at the first event to keep, leaves the other lanes and the
/// scheduler alone, does not count as popping, and the rest come out in order.
#[test]
fn dropping_a_lanes_front_keeps_the_rest_in_order() {
    let mut q = EventQueue::new();
    for i in 0..6u64 {
        q.push_lane(1, 10 + i, i);
    }
    q.push_lane(0, 12, 100);
    q.push(11, 200);
    let mut seen = Vec::new();
    // Events 0, 1 and 3 have become no-ops; 2 stops the drop, so 3 waits behind it.
    let dropped = q.drop_front_while(1, |at, &e| {
        seen.push(at);
        matches!(e, 0 | 1 | 3)
    });
    assert_eq!((dropped, seen, q.popped(), q.len()), (2, vec![10, 11, 12], 0, 6));
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(order, [(11, 200), (12, 2), (12, 100), (13, 3), (14, 4), (15, 5)]);
    // An emptied lane is one no pop compares with.
    q.push_lane(1, 20, 6);
    assert_eq!(q.drop_front_while(1, |_, _| true), 1);
    q.push(30, 7);
    assert_eq!((q.pop(), q.pop()), (Some((30, 7)), None));
}
