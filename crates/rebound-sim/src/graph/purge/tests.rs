//! Dropping ended timeouts early, the users' and the calls', changes nothing a run reports
//! (issue 40): the same report, byte for byte, with and without, on every example scenario, on
//! seconds held by nothing but such a timeout, and through a pause.

use crate::scenario::Scenario;
use crate::storm;
use std::cell::Cell;
use std::time::Duration;

thread_local! {
    /// Whether runs on this thread drop ended timeouts early, and how many they dropped.
    pub(in crate::graph) static EARLY: Cell<(bool, u64)> = const { Cell::new((true, 0)) };
}

/// Adds a finished run's early drops to [`EARLY`]'s count.
pub(in crate::graph) fn count(n: u64) {
    EARLY.set((EARLY.get().0, EARLY.get().1 + n));
}

/// `scenario`'s reports for each of its policies, with early drops or without, and how many
/// timeouts were dropped early.
fn reports(scenario: &Scenario, early: bool) -> (Vec<String>, u64) {
    EARLY.set((early, 0));
    let r = scenario.policies_or_default().iter().map(|p| format!("{:?}", storm::run(scenario, p))).collect();
    let dropped = EARLY.get().1;
    EARLY.set((true, 0));
    (r, dropped)
}

/// Asserts that `scenario`'s reports are the same with early drops as without; returns how
/// many timeouts were dropped early.
fn same_either_way(name: &str, scenario: &Scenario) -> u64 {
    let (with, dropped) = reports(scenario, true);
    let (without, none) = reports(scenario, false);
    assert_eq!(none, 0, "{name}: dropped with early drops off");
    for (a, b) in with.iter().zip(&without) {
        assert!(a == b, "{name}: the reports differ\nwith early drops:    {a}\nwithout early drops: {b}");
    }
    dropped
}

#[test]
fn every_example_scenario_reports_the_same_with_timeouts_dropped_early() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut dropped_in = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|x| x == "toml")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut s = Scenario::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
        // A minute of each is enough for the outages and the retries they bring.
        s.duration = s.duration.min(Duration::from_secs(60));
        if same_either_way(&name, &s) > 0 {
            dropped_in += 1;
        }
    }
    assert!(dropped_in >= 20, "timeouts dropped early in only {dropped_in} of {} scenarios", paths.len());
}

/// Seconds that hold nothing but an ended timeout (a constant arrival every 2.2 s, 3 s of work,
/// a 3.9 s timeout: see tests/graph.rs) record the concurrency as their pop would have; and
/// timeouts that fire, retried, with a queue that sheds.
#[test]
fn sparse_seconds_fired_timeouts_and_sheds_report_the_same_with_timeouts_dropped_early() {
    let sparse = "duration = \"40s\"\npolicies = [\"constant:max-retries=0\", \"exponential:base=1s,max-retries=3\"]\n\
                  [clients]\nrate = \"0.4545/s\"\narrivals = \"constant\"\ntimeout = \"3.9s\"\n[[service]]\n\
                  name = \"server\"\nworkers = 2\nqueue = 9\nservice_time = \"constant:3s\"\n[outage]\nkind = \"none\"\n";
    let s = Scenario::from_toml(sparse).unwrap();
    assert!(same_either_way("sparse", &s) > 0);
    // Poisson arrivals above the capacity: a full queue sheds, waits pass the timeout.
    let busy = "duration = \"30s\"\npolicies = [\"constant:max-retries=0\", \"exponential:base=10ms,max-retries=3\"]\n\
                [clients]\nrate = \"1100/s\"\ntimeout = \"8ms\"\n[[service]]\nname = \"server\"\nworkers = 1\n\
                queue = 9\nservice_time = \"exponential:1ms\"\n[outage]\nkind = \"none\"\n";
    let s = Scenario::from_toml(busy).unwrap();
    assert!(same_either_way("busy", &s) > 0);
}

/// The calls' timeouts alone (the users' timeout longer than the run schedules none): the
/// three-tier stack through its database's hard-down, and through a pause of the service in
/// the middle, which holds its calls' timeouts popped during it, ended or not, and pops them
/// again at its end: there none are dropped early, or `events` would differ.
#[test]
fn call_timeouts_dropped_early_change_nothing_and_none_around_a_pause() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenarios/three-tier.toml");
    let text = std::fs::read_to_string(dir).unwrap().replace("timeout = \"2s\"", "timeout = \"1h\"");
    let mut s = Scenario::from_toml(&text).unwrap();
    s.duration = Duration::from_secs(60);
    assert!(same_either_way("three-tier, calls only", &s) > 10_000);
    let paused =
        text.replace("service = \"db\"\nkind = \"hard-down\"", "service = \"api\"\nkind = \"pause\"");
    assert_ne!(paused, text);
    let mut s = Scenario::from_toml(&paused).unwrap();
    s.duration = Duration::from_secs(60);
    assert_eq!(same_either_way("three-tier paused, calls only", &s), 0);
}
