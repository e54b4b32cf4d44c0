//! The gap model's fit on gaps drawn from it: every kind told, the base and factor found, and
//! their 95 % intervals holding the truth about as often as they say.

use super::{fit, KINDS};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Gaps before retries 1..=counts.len() of a policy `b × m` with jitter `lo` and a lateness of
/// `s + Exp(mu)`, each at a time of its own in [0, 1) s.
fn draw(seed: u64, lo: f64, b: f64, m: f64, s: f64, mu: f64, counts: &[usize]) -> Vec<Vec<(f64, f64)>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut d = b;
    let mut out = Vec::new();
    for &n in counts {
        let g = (0..n)
            .map(|_| {
                let j = lo + (1.0 - lo) * rng.random::<f64>();
                let late = s - mu * (1.0 - rng.random::<f64>()).ln();
                (rng.random::<f64>(), j * d + late)
            })
            .collect();
        out.push(g);
        d *= m;
    }
    out
}

/// Retry chains of 10 ms × 2 with full jitter under a 2 s outage, one starting every 4 ms,
/// each making 3 retries, on a host whose lateness grows with the retries' load: 1 ms +
/// `Exp(mu(t))`, its mean rising linearly from `mu.0` at the outage's start to `mu.1` at its
/// end (the live twin's api under the hard-down outage: the callers' retries pile up, and the
/// host acts on a delay later and later).
fn storm(seed: u64, mu: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    chains(seed, |rng, t, d| {
        let mean = mu.0 + (mu.1 - mu.0) * (t / SECS).min(1.0);
        rng.random::<f64>() * d + 0.001 - mean * (1.0 - rng.random::<f64>()).ln()
    })
}

/// How long the synthetic outages last, in seconds.
const SECS: f64 = 2.0;

/// Retry chains of 10 ms × 2 with full jitter for [`SECS`], one starting every 4 ms, each
/// making 3 retries (2 ms an attempt): `next_gap(rng, t, d)` draws the gap of a retry at time `t`
/// (s) whose policy delay is at most `d` (s): its jittered delay plus the host's lateness.
fn chains(seed: u64, mut next_gap: impl FnMut(&mut SmallRng, f64, f64) -> f64) -> Vec<Vec<(f64, f64)>> {
    let (b, m, every, retries): (f64, f64, f64, usize) = (0.010, 2.0, 0.004, 3);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = vec![Vec::new(); retries];
    let mut start = 0.0;
    while start < SECS {
        let (mut t, mut d) = (start, b);
        for g in out.iter_mut() {
            let gap = next_gap(&mut rng, t, d);
            g.push((t, gap));
            t += gap + 0.002; // the next attempt's 2 ms
            d *= m;
        }
        start += every;
    }
    out
}

#[test]
fn a_lateness_growing_with_the_load_is_not_read_as_the_policy() {
    // 10 ms × 2, full jitter, three retries a call, 250 calls a second for 2 s; the lateness's
    // mean grows from 0.5 to 30 ms (the twin's api on a busy host went from about 1 to 80 ms
    // in the 2 s of its outage: `rebound fit` on its traces, each stretch's gaps less the
    // delays' means agreeing across the retry indices). One lateness for the whole run read
    // 6.8 ms × 2.34 for it (seed 1).
    let mut covered = (0, 0);
    for seed in 1..=8 {
        let g = storm(seed, (0.0005, 0.030));
        let f = fit(&g, &[0, 1, 2]).unwrap();
        assert_eq!(KINDS[f.kind].0, "full", "seed {seed}: {f:?}");
        assert!((f.base / 0.010 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        assert!((f.factor / 2.0 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        covered.0 += ((f.base - 0.010).abs() <= f.base_ci.unwrap()) as u32;
        covered.1 += ((f.factor - 2.0).abs() <= f.factor_ci.unwrap()) as u32;
    }
    // 95 % intervals: at least 6 of 8 hold the truth (a binomial(8, 0.95) falls below 6 with
    // probability 0.6 %; the seeds are fixed, so the test is the same every run).
    assert!(covered.0 >= 6 && covered.1 >= 6, "intervals held the truth {covered:?} of 8 times");
}

#[test]
fn a_busy_callers_lateness_is_not_read_as_the_policy() {
    // The live twin's api under an outage: 10 ms × 2, full jitter, 7 ms late on average.
    let mut covered = (0, 0);
    for seed in 1..=12 {
        let g = draw(seed, 0.0, 0.010, 2.0, 0.001, 0.006, &[400, 300, 250]);
        let f = fit(&g, &[0, 1, 2]).unwrap();
        assert_eq!(KINDS[f.kind].0, "full", "seed {seed}: {f:?}");
        assert!((f.base / 0.010 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        assert!((f.factor / 2.0 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        assert!((f.floor + f.tail - 0.007).abs() < 0.002, "seed {seed}: {f:?}");
        covered.0 += ((f.base - 0.010).abs() <= f.base_ci.unwrap()) as u32;
        covered.1 += ((f.factor - 2.0).abs() <= f.factor_ci.unwrap()) as u32;
    }
    // 95 % intervals: at least 10 of 12 hold the truth (a binomial(12, 0.95) falls below 10
    // with probability 2 %; the seeds are fixed, so the test is the same every run).
    assert!(covered.0 >= 10 && covered.1 >= 10, "intervals held the truth {covered:?} of 12 times");
}

#[test]
fn each_jitter_kind_is_told() {
    for (kind, (name, lo)) in KINDS.iter().enumerate() {
        let g = draw(7, *lo, 0.100, 1.5, 0.0005, 0.001, &[300, 200, 100]);
        let f = fit(&g, &[0, 1, 2]).unwrap();
        assert_eq!(f.kind, kind, "{name}: {f:?}");
        assert!((f.base / 0.100 - 1.0).abs() < 0.05 && (f.factor / 1.5 - 1.0).abs() < 0.05, "{name}: {f:?}");
    }
}

#[test]
fn first_retries_alone_give_a_base_and_no_factor() {
    let g = draw(3, 0.0, 0.050, 2.0, 0.0, 0.0005, &[200]);
    let f = fit(&g, &[0, 1, 2]).unwrap();
    assert_eq!((KINDS[f.kind].0, f.factor, f.factor_ci), ("full", 1.0, None));
    assert!((f.base / 0.050 - 1.0).abs() < 0.05, "{f:?}");
    assert!(fit(&[], &[2]).is_none());
}

/// A standard normal draw (Box and Muller 1958).
fn normal(rng: &mut SmallRng) -> f64 {
    let (u, v): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// As [`storm`], on a host whose lateness within a stretch of time is symmetric about a centre
/// that follows the load: `N(c(t), sd²)` (at least 0.2 ms), `c` rising linearly from `c.0` to
/// `c.1` over the 2 s, and one retry in 20 acted on at once (0.2 to 1 ms late) — the live twin's
/// api under the outage on a host the twin judged quiet enough.
fn symmetric_storm(seed: u64, c: (f64, f64), sd: f64) -> Vec<Vec<(f64, f64)>> {
    chains(seed, |rng, t, d| {
        let centre = c.0 + (c.1 - c.0) * (t / SECS).min(1.0);
        let late = if rng.random::<f64>() < 0.05 {
            0.0002 + 0.0008 * rng.random::<f64>()
        } else {
            (centre + sd * normal(rng)).max(0.0002)
        };
        rng.random::<f64>() * d + late
    })
}

#[test]
fn a_symmetric_lateness_following_the_load_is_not_read_as_the_policy() {
    // 10 ms × 2, full jitter, three retries a call, 250 calls a second for 2 s; the lateness
    // centred on 1 ms at the start and 25 ms at the end, spread 4 ms either way (sd): within a
    // stretch of time about symmetric, as the twin's api's were under the outage (its gaps with
    // `jitter=none`, less the delays). The floor and exponential tail alone read 17.5 to 21.1 ms ×
    // 1.48 to 1.63 for it (these seeds). The profile likelihood's 95 % intervals, before the
    // bootstrap's, held the base on 6 of these 8 (none on seed 3, ±0.29 ms on seed 8's 8.25 ms).
    let mut covered = (0, 0);
    for seed in 1..=8 {
        let g = symmetric_storm(seed, (0.001, 0.025), 0.004);
        let f = fit(&g, &[0, 1, 2]).unwrap();
        assert_eq!(KINDS[f.kind].0, "full", "seed {seed}: {f:?}");
        assert!((f.base / 0.010 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        assert!((f.factor / 2.0 - 1.0).abs() < 0.2, "seed {seed}: {f:?}");
        covered.0 += ((f.base - 0.010).abs() <= f.base_ci.unwrap()) as u32;
        covered.1 += ((f.factor - 2.0).abs() <= f.factor_ci.unwrap()) as u32;
    }
    // As in the tests above: at least 6 of 8 (a binomial(8, 0.95) falls below 6 with
    // probability 0.6 %; the seeds are fixed).
    assert!(covered.0 >= 6 && covered.1 >= 6, "intervals held the truth {covered:?} of 8 times");
}

#[test]
fn the_intervals_are_repeatable_and_as_wide_as_the_seeds_spread() {
    // The bootstrap draws with a seed of its own: the same gaps give the same interval. And on
    // the symmetric storm its half-width is of the order of 1.96 times the spread of the base
    // over seeds (8.2 to 11.7 ms on seeds 1 to 8, standard deviation 1.1 ms: 2.2 ms; the
    // bootstrap gave 1.6 to 3.0 ms on them), not the profile likelihood's 0.3 ms or none: on
    // seed 8 (8.25 ms) it said ± 0.29 ms, the bootstrap ± 2.8 ms.
    let g = symmetric_storm(8, (0.001, 0.025), 0.004);
    let (a, b) = (fit(&g, &[2]).unwrap(), fit(&g, &[2]).unwrap());
    assert_eq!((a.base_ci, a.factor_ci), (b.base_ci, b.factor_ci));
    let half = a.base_ci.unwrap();
    assert!((0.0015..0.0045).contains(&half), "{a:?}");
}
