use super::*;
use std::sync::atomic::{AtomicU64, Ordering};

#[test]
fn client_ranges() {
    assert_eq!("10..190:10".parse::<ClientRange>().unwrap().counts().len(), 19);
    assert_eq!("5..7".parse::<ClientRange>().unwrap().counts(), [5, 6, 7]);
    assert_eq!("50".parse::<ClientRange>().unwrap().counts(), [50]);
    assert_eq!("10..25:10".parse::<ClientRange>().unwrap().counts(), [10, 20]);
    for bad in ["", "0..10", "20..10", "1..10:0", "1..20000", "a..b", "10:5", "1..2..3", "-1..5"] {
        let e = bad.parse::<ClientRange>().unwrap_err().to_string();
        assert!(e.contains("--clients"), "{bad}: {e}");
    }
}

#[test]
fn sweep_is_ordered_counted_and_reproducible() {
    let sweep = Sweep {
        strategies: vec![Strategy::parse("full").unwrap(), Strategy::parse("none").unwrap()],
        clients: "5..10:5".parse().unwrap(),
        runs: 4,
        seed: 9,
        network: Network::default(),
    };
    let ticks = AtomicU64::new(0);
    let points = sweep.run(|| {
        ticks.fetch_add(1, Ordering::Relaxed);
    });
    let points = points.unwrap();
    assert_eq!(ticks.into_inner(), sweep.total_runs());
    let keys: Vec<_> = points.iter().map(|p| (p.policy.as_str(), p.clients)).collect();
    assert_eq!(keys, [("full", 5), ("full", 10), ("none", 5), ("none", 10)]);
    // Every client writes at least once.
    assert!(points.iter().all(|p| p.calls >= f64::from(p.clients) && p.time_ms > 0.0));
    assert_eq!(points, sweep.run(|| {}).unwrap());
    // The same on one thread as on several.
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
    assert_eq!(points, pool(1).install(|| sweep.run(|| {})).unwrap());
    assert_eq!(points, pool(3).install(|| sweep.run(|| {})).unwrap());
    let e = Sweep { runs: 0, ..sweep }.run(|| {}).unwrap_err();
    assert!(e.to_string().contains("--runs"), "{e}");
}

/// Pins the model's semantics (what a call is, how time is measured) to a rerun of
/// Brooker's simulator at N = 100: calls none 2426, exponential 1846, decorrelated 999,
/// equal 813, full 796; time (ms) none 2031, exponential 63309, decorrelated 4780, equal 6540,
/// full 4909. 30 runs: calls within 6 %, times within 12 %.
#[test]
fn reproduces_brookers_figures_at_100_clients() {
    let sweep = Sweep {
        strategies: Strategy::brooker(),
        clients: "100".parse().unwrap(),
        runs: 30,
        seed: 1,
        network: Network::default(),
    };
    let published = [
        ("none", 2426.0, 2031.0),
        ("exponential", 1846.0, 63309.0),
        ("full", 796.0, 4909.0),
        ("equal", 813.0, 6540.0),
        ("decorrelated", 999.0, 4780.0),
    ];
    for (p, (name, calls, time)) in sweep.run(|| {}).unwrap().iter().zip(published) {
        assert_eq!(p.policy, name);
        assert!((p.calls / calls - 1.0).abs() < 0.06, "{name}: {} calls, published {calls}", p.calls);
        assert!((p.time_ms / time - 1.0).abs() < 0.12, "{name}: {} ms, published {time}", p.time_ms);
    }
}
