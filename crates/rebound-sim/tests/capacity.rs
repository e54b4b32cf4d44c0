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

#[test]
fn the_example_scenario_is_the_sweeps_configuration() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/s2-capacity.toml");
    let mut toml = rebound_sim::Scenario::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(toml.policies.len(), 3);
    toml.policies.clear();
    let cfg = CapacityConfig { clients: 400, ..CapacityConfig::default() };
    assert_eq!(toml, cfg.scenario());
}

#[test]
fn refusal_cost_is_a_service_key_with_a_range() {
    use rebound_sim::Scenario;
    let svc = |extra: &str| {
        format!("[[service]]\nname = \"p\"\nworkers = 1\nservice_time = \"constant:10ms\"\n{extra}")
    };
    let s = Scenario::from_toml(&svc("refusal_cost = \"2.5ms\"")).unwrap();
    assert_eq!(s.services[0].refusal_cost, std::time::Duration::from_micros(2500));
    assert!(Scenario::from_toml(&svc("")).unwrap().services[0].refusal_cost.is_zero());
    let e = Scenario::from_toml(&svc("refusal_cost = \"2h\"")).unwrap_err().to_string();
    assert!(e.contains("service.refusal_cost") && e.contains("[0s, 1h]"), "{e}");
    let e = Scenario::from_toml(&svc("refusal_cost = \"soon\"")).unwrap_err().to_string();
    assert!(e.contains("refusal_cost"), "{e}");
    let s5 = "[[service]]\nname = \"p\"\nservice_time = \"s5\"\nrefusal_cost = \"1ms\"";
    let e = Scenario::from_toml(s5).unwrap_err().to_string();
    assert!(e.contains("service.refusal_cost") && e.contains("s5"), "{e}");
    // No think time needs a pause after giving up, else a refused request could loop at once.
    let e = Scenario::from_toml("[clients]\nthink = \"0s\"").unwrap_err().to_string();
    assert!(e.contains("clients.think") && e.contains("give_up_pause"), "{e}");
    let e = Scenario::from_toml("[clients]\ncount = 10000000\nthink = \"0s\"\ngive_up_pause = \"1s\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("clients.give_up_pause"), "{e}");
}

#[test]
fn refusals_cost_nothing_without_a_refusal_cost() {
    // The same overload with free refusals: the processor keeps serving 100 jobs/s.
    let cfg =
        CapacityConfig { clients: 800, refusal_cost: std::time::Duration::ZERO, ..CapacityConfig::default() };
    let r = run(&cfg, &"constant:base=1s".parse().unwrap());
    assert!(r.throughput > 99.0 && r.refusals_per_s > 500.0, "{r:?}");
}
