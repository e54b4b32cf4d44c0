use super::*;

fn pts(oks: &[u64]) -> Vec<Point> {
    oks.iter().enumerate().map(|(t, &ok)| Point { t: t as u64, ok, ..Point::default() }).collect()
}

/// The verdict against a constant offered load.
fn flat(p: &[Point], trigger: Option<(u64, u64)>, c: &VerdictConfig) -> Judgement {
    judge(p, &Offered::constant(p.len()), trigger, c)
}

fn cfg(baseline: u64, window: u64) -> VerdictConfig {
    VerdictConfig {
        baseline: Duration::from_secs(baseline),
        window: Duration::from_secs(window),
        threshold: 0.9,
    }
}

#[test]
fn a_collapse_without_a_trigger_is_unstable_not_recovered() {
    // Healthy for 12 s, then nothing to the end: the bug of issue 25 ("any success counts").
    let mut oks = vec![10; 12];
    oks.extend([0; 28]);
    let j = flat(&pts(&oks), None, &cfg(10, 5));
    assert_eq!((j.verdict, j.recovery_s), (Verdict::Unstable, None));
    assert!(!j.verdict.recovered());
}

#[test]
fn each_verdict() {
    let c = cfg(4, 2);
    assert_eq!(flat(&pts(&[10; 12]), None, &c).verdict, Verdict::Healthy);
    let dip = pts(&[10, 10, 10, 10, 10, 10, 0, 0, 10, 10, 10, 10, 10, 10]);
    assert_eq!(flat(&dip, None, &c).recovery_s, Some(0));
    assert_eq!(flat(&dip, None, &c).verdict, Verdict::Recovered);
    assert_eq!(flat(&dip, Some((6, 8)), &c).verdict, Verdict::Recovered);
    let stuck = pts(&[10, 10, 10, 10, 10, 10, 0, 0, 1, 1, 1, 1, 1, 1]);
    assert_eq!(flat(&stuck, Some((6, 8)), &c).verdict, Verdict::Stuck);
    let never = pts(&[0, 0, 0, 0, 0, 0, 10, 10, 10, 10]);
    assert_eq!(flat(&never, Some((4, 6)), &c).verdict, Verdict::Unstable);
    let shaky = pts(&[10, 10, 0, 0, 20, 20, 0, 0, 10, 10, 10, 10]);
    assert_eq!(flat(&shaky, Some((6, 8)), &c).verdict, Verdict::Unstable);
}

#[test]
fn no_success_in_the_last_window_is_never_recovered() {
    // Back to the baseline, then the last window dark: the mean of the rest is still high.
    let mut oks = vec![10; 10];
    oks.extend([0, 0, 30, 30, 30, 30, 30, 0, 0]);
    let j = flat(&pts(&oks), Some((10, 12)), &cfg(10, 2));
    assert_eq!(j.verdict, Verdict::Stuck);
}
