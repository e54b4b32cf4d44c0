use super::*;
use crate::load::LatenessSummary;

fn delay(process: &str, ms: f64) -> ProcessDelay {
    ProcessDelay { process: process.into(), sched_delay_ms: ms, wait_share: 0.5 }
}

#[test]
fn each_bound_judged_and_named() {
    let quiet = LatenessSummary { count: 1000, mean_ms: 0.6, p99_ms: 2.0, max_ms: 3.0 };
    let f = judge(quiet, vec![delay("load generator", 0.05), delay("db", 0.1)], Some(0.9));
    assert!(f.valid && f.reasons.is_empty(), "{f:?}");
    assert!(f.summary().contains("0.100 ms per timeslice (db; bound 0.5 ms)"), "{}", f.summary());
    let late = LatenessSummary { p99_ms: 32.8, ..quiet };
    let f = judge(late, vec![delay("db", 2.6)], Some(0.13));
    assert!(!f.valid);
    assert_eq!(f.reasons.len(), 3, "{:?}", f.reasons);
    assert!(f.reasons[0].contains("32.8 ms late") && f.reasons[0].contains("bound 10 ms"));
    assert!(f.reasons[1].starts_with("db waited 2.60 ms"));
    assert!(f.reasons[2].contains("13 %") && f.reasons[2].contains("bound 15 %"));
    // Figures /proc could not give are judged by the others.
    assert!(judge(quiet, Vec::new(), None).valid);
}

#[test]
fn this_process_is_read_from_proc() {
    let Some(s) = sched(std::process::id()) else { return };
    // Some work on this thread shows as run time.
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(20) {}
    let after = sched(std::process::id()).unwrap();
    assert!(after.run_ns > s.run_ns && after.slices >= s.slices, "{s:?} {after:?}");
    let (busy, total) = host().unwrap();
    assert!(busy <= total && total > 0);
}
