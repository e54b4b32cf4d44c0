//! The guide's figures (docs/src/lab/storm.md, sweep-map-contend.md), exactly: the storm table (`rebound storm`), a row of the sweep table
//! (`rebound sweep`) and the contention table at N = 100 (`rebound contend --clients 100`).
//! The storm now runs on the service-graph engine; these pin that it changed no figure.

use rebound_sim::capacity::{run as capacity, CapacityConfig};
use rebound_sim::contend::{Network, Strategy, Sweep};
use rebound_sim::{default_policies, storm, Scenario};

/// The storm table of the guide (docs/src/lab/storm.md), per default policy: recovered,
/// recovery (s), peak concurrency, attempts per success, client wait (s).
const STORM_TABLE: [(bool, Option<f64>, u64, &str, &str); 7] = [
    (false, None, 35964, "31.28", "4477"),
    (true, Some(3.0), 564, "1.57", "17448"),
    (true, Some(0.0), 644, "1.75", "11830"),
    (false, None, 11288, "13.02", "71703"),
    (true, Some(0.0), 585, "1.63", "13522"),
    (true, Some(1.0), 553, "1.29", "0"),
    (false, None, 9078, "12.56", "60252"),
];

#[test]
fn the_guides_storm_chapter_shows_these_figures() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/lab/storm.md");
    let text = std::fs::read_to_string(path).expect("the guide's storm chapter");
    // | policy | verdict | recovery (s after resume) | peak concurrency | attempts per request | attempts per success | client wait (s) |
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .take(7)
        .collect();
    assert_eq!(rows.len(), 7, "the storm table in {path}");
    for (row, want) in rows.iter().zip(STORM_TABLE) {
        let recovery = want.1.map_or("–".to_string(), |r| format!("{r:.0}"));
        let verdict_recovered = matches!(row[1], "recovered" | "healthy");
        assert_eq!(
            (verdict_recovered, row[2], row[3], row[5], row[6]),
            (want.0, recovery.as_str(), want.2.to_string().as_str(), want.3, want.4),
            "{}",
            row[0]
        );
    }
}

#[test]
fn the_builtin_storm_gives_the_guides_table() {
    let s = Scenario::default();
    for (p, want) in default_policies().iter().zip(STORM_TABLE) {
        let r = storm::run(&s, p);
        let got = (
            r.recovered,
            r.recovery_s,
            r.peak_concurrency,
            format!("{:.2}", r.amplification),
            format!("{:.0}", r.total_wait_s),
        );
        assert_eq!(got, (want.0, want.1, want.2, want.3.to_string(), want.4.to_string()), "{p}");
    }
}

#[test]
fn the_sweep_gives_the_guides_row_at_200_clients() {
    let at = |policy: &str| {
        let r =
            capacity(&CapacityConfig { clients: 200, ..CapacityConfig::default() }, &policy.parse().unwrap());
        format!("{:.1}", r.throughput)
    };
    assert_eq!(at("constant:base=1s"), "62.8");
    assert_eq!(at("exponential:base=10ms,factor=2,cap=1m"), "99.4");
    assert_eq!(at("exponential:base=10ms,factor=2,cap=1m,jitter=full"), "98.7");
}

#[test]
fn contend_gives_the_guides_table_at_100_clients() {
    let sweep = Sweep {
        strategies: Strategy::brooker(),
        clients: "100".parse().unwrap(),
        runs: 100,
        seed: 1,
        network: Network::default(),
    };
    let got: Vec<(String, String, String)> = sweep
        .run(|| {})
        .unwrap()
        .iter()
        .map(|p| (p.policy.clone(), format!("{:.0}", p.calls), format!("{:.0}", p.time_ms)))
        .collect();
    let want = [
        ("none", 2428, 2031),
        ("exponential", 1857, 63615),
        ("full", 795, 4865),
        ("equal", 813, 6612),
        ("decorrelated", 1001, 4598),
    ];
    for (name, calls, time) in want {
        let row = got.iter().find(|g| g.0 == name).unwrap();
        assert_eq!(
            (row.1.as_str(), row.2.as_str()),
            (calls.to_string().as_str(), time.to_string().as_str()),
            "{name}"
        );
    }
}
