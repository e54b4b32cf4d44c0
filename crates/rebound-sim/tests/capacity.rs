//! S2's figure: fixed-interval retries collapse past a knee, exponential backoff does not.

use rebound_sim::capacity::{run, CapacityConfig};

fn throughput(clients: u32, policy: &str) -> f64 {
    run(&CapacityConfig { clients, ..CapacityConfig::default() }, &policy.parse().unwrap()).throughput
}

#[test]
fn fixed_retries_collapse_near_400_clients_and_backoff_stays_high() {
    let fixed: Vec<f64> = [100, 300, 500, 800].iter().map(|&n| throughput(n, "constant:base=1s")).collect();
    assert!(fixed[0] > 80.0, "{fixed:?}");
    assert!(fixed.windows(2).all(|w| w[1] <= w[0]), "monotone decline: {fixed:?}");
    assert!(fixed[2] < 5.0 && fixed[3] < 1.0, "starved past the knee: {fixed:?}");
    for policy in
        ["exponential:base=10ms,factor=2,cap=1m", "exponential:base=10ms,factor=2,cap=1m,jitter=full"]
    {
        for n in [100, 500, 800] {
            let t = throughput(n, policy);
            assert!(t > 85.0, "{policy} at {n} clients: {t}");
        }
    }
}

#[test]
fn refusals_account_for_the_lost_capacity() {
    let cfg = CapacityConfig { clients: 300, ..CapacityConfig::default() };
    let r = run(&cfg, &"constant:base=1s".parse().unwrap());
    // Each refusal costs 2.5 ms; each job 10 ms: the two shares fill the processor.
    let jobs_share = r.throughput * 0.010;
    assert!((jobs_share + r.refusing_share - 1.0).abs() < 0.02, "{jobs_share} + {}", r.refusing_share);
}

#[test]
fn bad_configs_name_the_field() {
    let e = CapacityConfig { queue: 0, ..CapacityConfig::default() }.validate().unwrap_err().to_string();
    assert!(e.contains("`queue`"), "{e}");
    let e = CapacityConfig { clients: 0, ..CapacityConfig::default() }.validate().unwrap_err().to_string();
    assert!(e.contains("`clients`"), "{e}");
}
