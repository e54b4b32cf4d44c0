//! The stack advisor's search (`rebound_sim::tune`): deterministic for a seed at any thread
//! count, bounded before it starts, and its `[advise]` keys checked like every key.

use rebound_sim::tune::{advise, Request};
use rebound_sim::{Scenario, ScenarioError};

const STACK: &str = r#"
duration = "30s"
policies = ["exponential:base=10ms,factor=2,jitter=full,max-retries=3"]
[clients]
rate = "100/s"
[[service]]
name = "api"
workers = 20
queue = 40
service_time = "exponential:2ms"
[[service.call]]
to = "db"
policy = "exponential:base=10ms,factor=2,jitter=full,max-retries=3"
timeout = "500ms"
[[service]]
name = "db"
workers = 2
queue = 16
service_time = "exponential:5ms"
error_rate = 0.02
[outage]
service = "db"
kind = "hard-down"
start = "10s"
end = "15s"
[advise]
candidates = 6
refine = 2
first_runs = 1
runs = 3
"#;

fn summary(sc: &Scenario, threads: usize) -> Vec<String> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let a = pool.install(|| advise(&Request::new(sc), &|| {}).unwrap());
    a.candidates
        .iter()
        .chain([&a.current])
        .chain(&a.references)
        .map(|r| {
            let specs: Vec<String> = r.settings.iter().map(|s| s.spec.to_string()).collect();
            format!("{} {:?} {:?}", specs.join(";"), r.evidence, a.spent)
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_answer_on_one_thread_and_on_two() {
    let sc = Scenario::from_toml(STACK).unwrap();
    assert_eq!(summary(&sc, 1), summary(&sc, 2));
}

#[test]
fn the_search_is_bounded_before_it_starts() {
    let mut sc = Scenario::from_toml(STACK).unwrap();
    sc.advise.as_mut().unwrap().candidates = 10_000;
    sc.advise.as_mut().unwrap().runs = 10_000;
    sc.duration = std::time::Duration::from_secs(3600);
    let err = Request::new(&sc).plan().unwrap_err();
    assert!(matches!(err, ScenarioError::TooCostly(_)), "{err}");
    assert!(err.to_string().contains("advise.candidates"), "{err}");
    let (_, variants, plan) = Request::new(&Scenario::from_toml(STACK).unwrap()).plan().unwrap();
    assert_eq!((variants.outages.len(), plan.variants), (2, 2));
    assert!(plan.runs > 0 && plan.events > 0.0);
}

#[test]
fn advise_keys_name_themselves_and_their_range() {
    for (extra, key) in [
        ("multiplier = [0.5, 2.0]\n", "advise.multiplier"),
        ("budgets = []\n", "advise.budgets"),
        ("jitter = \"thain\"\n", "advise.jitter"),
        ("grpc_ratio = [0.0, 0.5]\n", "advise.grpc_ratio"),
        ("tune = [\"users\", \"users\"]\n", "advise.tune"),
        ("[[advise.incident]]\nservice = \"nowhere\"\nstart = \"5s\"\nend = \"10s\"\n", "nowhere"),
        (
            "[[advise.incident]]\nkind = \"errors\"\nerror_rate = 2.0\nstart = \"5s\"\nend = \"10s\"\n",
            "advise.incident.error_rate",
        ),
    ] {
        let text = STACK.replace("[advise]\n", &format!("[advise]\n{extra}"));
        let text = if extra.starts_with("[[") { format!("{STACK}{extra}") } else { text };
        let err = Scenario::from_toml(&text).unwrap_err().to_string();
        assert!(err.contains(key), "{extra}: {err}");
    }
    assert!(Scenario::from_toml(&STACK.replace("runs = 3", "runz = 3"))
        .unwrap_err()
        .to_string()
        .contains("runz"));
    let err =
        Scenario::from_toml(&STACK.replace("candidates = 6", "candidates = 0")).unwrap_err().to_string();
    assert!(err.contains("advise.candidates") && err.contains("[1, 10000]"), "{err}");
}
