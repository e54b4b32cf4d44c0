//! The event queue changes the speed of a run, never its result: the storm (S5's default scenario,
//! every default policy, three outage kinds) and the capacity experiment (S2) give, byte for byte,
//! the JSON they gave with the binary-heap queue the engine had before (issue 14) — but for the
//! number of events, which S5's lazy ticks lowered (issue 39: a group of requests ticking at the
//! same instants is one event, a parked group none; see `rebound_sim::server`).
//!
//! The golden files were written by the heap-only engine (commit f082aad). To write them again
//! after a deliberate change of the *model*, run
//! `REBOUND_BLESS=1 cargo test -p rebound-sim --test queue_golden` and say why in the commit.

use rebound_sim::capacity::{self, CapacityConfig};
use rebound_sim::{default_policies, storm, OutageKind, Scenario};
use std::path::PathBuf;

fn check(name: &str, json: String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("REBOUND_BLESS").is_some() {
        std::fs::write(&path, &json).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    if want == json {
        return;
    }
    let (want, got) = (without_events(&want), without_events(&json));
    assert!(want == got, "{name}: the run's JSON differs from the golden file (events apart)");
}

/// The JSON text with every `events` field removed, as compact JSON.
fn without_events(json: &str) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("events");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    strip(&mut v);
    v.to_string()
}

#[test]
fn storm_json_is_byte_for_byte_what_the_heap_engine_printed() {
    let mut runs = Vec::new();
    for kind in [OutageKind::Pause, OutageKind::HardDown, OutageKind::CapacityCut] {
        let mut s = Scenario::default();
        s.outage.kind = kind;
        // Every default policy under S5's pause; the first two under the other outages.
        let n = if kind == OutageKind::Pause { usize::MAX } else { 2 };
        for p in default_policies().iter().take(n) {
            runs.push(storm::run(&s, p));
        }
    }
    check("storm.json", serde_json::to_string(&runs).unwrap());
}

#[test]
fn capacity_json_is_byte_for_byte_what_the_heap_engine_printed() {
    let runs: Vec<_> = ["constant:base=1s", "exponential:base=10ms,factor=2,cap=1m,jitter=full"]
        .iter()
        .map(|p| {
            capacity::run(&CapacityConfig { clients: 500, ..CapacityConfig::default() }, &p.parse().unwrap())
        })
        .collect();
    check("capacity.json", serde_json::to_string(&runs).unwrap());
}
