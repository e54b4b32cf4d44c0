//! `POST /api/check`'s answers: each error at its key's path, in plain words.

use super::check;
use serde_json::json;

const STACK: &str = "duration = \"20s\"\n[clients]\ncount = 50\n[outage]\nkind = \"none\"\n\
    [[service]]\nname = \"front\"\n[[service.call]]\nto = \"api\"\n\
    [[service]]\nname = \"api\"\n[[service.call]]\nto = \"db\"\n\
    [[service]]\nname = \"db\"\n";

fn paths(body: serde_json::Value) -> Vec<(String, String)> {
    check(body.to_string().as_bytes()).errors.into_iter().map(|e| (e.path, e.message)).collect()
}

fn one(toml: &str) -> (String, String) {
    let e = paths(json!({ "scenario": toml, "policies": ["constant:max-retries=0"] }));
    assert_eq!(e.len(), 1, "{e:?}");
    e.into_iter().next().unwrap()
}

#[test]
fn a_call_policy_a_type_and_a_range_are_each_at_their_key() {
    let (path, m) = one(&STACK.replace("to = \"db\"", "to = \"db\"\npolicy = \"exponential:fctor=2\""));
    assert_eq!(path, "service[1].call[0].policy", "{m}");
    assert!(m.contains("fctor") && !m.contains("invalid type"), "{m}");
    let (path, m) = one(&STACK.replace("name = \"db\"", "name = \"db\"\nworkers = \"abc\""));
    assert_eq!(
        (path.as_str(), m.as_str()),
        ("service[2].workers", "`service[2].workers` = \"abc\": must be an integer in [1, 100000]")
    );
    let (path, m) = one(&STACK.replace("name = \"api\"", "name = \"api\"\nworkers = 0"));
    assert_eq!(path, "service[1].workers", "{m}");
    assert!(m.contains("= 0") && m.contains("[1, 100000]"), "{m}");
    let (path, m) = one(&STACK.replace("count = 50", "count = 50\ntimeout = \"-2s\""));
    assert_eq!(path, "clients.timeout", "{m}");
    assert!(m.contains("-2s") && m.contains("> 0"), "{m}");
}

#[test]
fn the_request_keys_and_the_lab_bounds_have_paths_too() {
    let e = paths(json!({ "scenario": "", "runs": 0, "policies": ["constant:bse=1s"] }));
    let got: Vec<&str> = e.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(got, ["policies[0]", "runs"], "{e:?}");
    let e = paths(json!({ "scenario": "[clients]\ncount = 200000" }));
    assert_eq!(e[0].0, "clients.count", "{e:?}");
    assert!(e[0].1.contains("lab's bound"), "{e:?}");
    let e = paths(json!({ "scenaro": "" }));
    assert_eq!(e[0].0, "scenaro", "{e:?}");
    assert!(paths(json!({ "scenario": STACK, "policies": ["constant:max-retries=0"] })).is_empty());
}

/// The default scenario passes every bound of a single run; its replications are refused
/// before they start once their predicted time passes the lab's wall-clock bound. The lab has
/// learnt here what its two storming policies cost (27.3 and 9.8 million events, measured
/// with `rebound storm --runs 1 --policy ... --json`), at the assumed 5 million events/s: 100
/// replications need 50 waves of about 7.4 s on 2 cores (9 waves on 12).
#[test]
fn replications_of_the_default_storm_past_the_bound_are_refused_with_the_runs_that_fit() {
    let s = rebound_sim::Scenario::default();
    for (spec, events) in
        [("constant:base=100ms", 27_306_344), ("constant:base=100ms,throttle=sre:2", 9_796_070)]
    {
        crate::lab::cost::learn(&s, &spec.parse().unwrap(), events, 1, None);
    }
    let checked = check(json!({ "runs": 100 }).to_string().as_bytes());
    let cost = checked.cost.as_ref().expect("the scenario reads");
    assert_eq!((cost.policies, cost.runs), (7, 100));
    assert!(checked.run.is_none());
    let e = &checked.errors[0];
    assert_eq!(e.path, "runs");
    assert!(e.message.contains("wall-clock bound of 60 s"), "{}", e.message);
    assert!(e.message.contains(&format!("at most {} replications", cost.runs_that_fit)), "{}", e.message);
    assert!(cost.seconds > 60.0 && cost.runs_that_fit < 100, "{cost:?}");
    let one = check(json!({}).to_string().as_bytes());
    assert!(one.errors.is_empty() && one.run.is_some(), "{:?}", one.errors);
    assert!(one.cost.unwrap().seconds < 60.0);
}
