//! S5's lazy ticks (issue 39) change how many events a storm takes, never its figures: the quick
//! start's bare `rebound storm`, the built-in scenario with other seeds and run counts, and S5
//! scenarios through every kind of outage, open and closed loops, a network link, hedges and an
//! S5 server called by another service, and events scheduled exactly one tick ahead onto tick
//! instants (tests/fixtures/s5/*.toml) print, to the last digit, the JSON the engine with one
//! event per request per tick printed — but for `events`.
//!
//! The golden file holds, per case, an FNV-1a hash of that JSON with every `events` field
//! removed, written by the per-request-tick engine (commit 0cd09fd, before the lazy ticks):
//! `REBOUND_BLESS=<that commit's rebound binary> cargo test -p rebound-cli --test lazy_ticks`.
//! A deliberate change of the model rewrites it with the new binary, in a commit that says why.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each case: its name and `rebound` arguments (`{s5}`: the fixtures' directory).
const CASES: &[(&str, &[&str])] = &[
    ("quick-start", &["storm", "--json"]),
    ("built-in-seed-2-runs-3", &["storm", "--seed", "2", "--runs", "3", "--json"]),
    ("built-in-seed-1", &["storm", "--seed", "1", "--json"]),
    ("hard-down", &["storm", "--scenario", "{s5}/hard-down.toml", "--json"]),
    ("capacity-cut", &["storm", "--scenario", "{s5}/capacity-cut.toml", "--json"]),
    ("errors", &["storm", "--scenario", "{s5}/errors.toml", "--json"]),
    ("load-spike", &["storm", "--scenario", "{s5}/load-spike.toml", "--json"]),
    ("open-constant", &["storm", "--scenario", "{s5}/open-constant.toml", "--json"]),
    ("short-pause", &["storm", "--scenario", "{s5}/short-pause.toml", "--runs", "2", "--json"]),
    ("network", &["storm", "--scenario", "{s5}/network.toml", "--json"]),
    ("downstream", &["storm", "--scenario", "{s5}/downstream.toml", "--runs", "2", "--json"]),
    ("tick-is-backoff", &["storm", "--scenario", "{s5}/tick-is-backoff.toml", "--json"]),
    ("link-is-tick", &["storm", "--scenario", "{s5}/link-is-tick.toml", "--json"]),
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/s5")
}

/// The JSON `rebound` (or the binary at `bin`) prints for `args`, hashed without its `events`.
fn fingerprint(bin: Option<&Path>, args: &[&str]) -> (u64, u64) {
    let dir = fixtures();
    let args: Vec<String> = args.iter().map(|a| a.replace("{s5}", dir.to_str().unwrap())).collect();
    let mut cmd = match bin {
        Some(b) => Command::new(b),
        None => Command::cargo_bin("rebound").unwrap(),
    };
    let out = cmd.args(&args).timeout(std::time::Duration::from_secs(600)).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = strip_events(&mut v);
    (fnv1a(v.to_string().as_bytes()), events)
}

/// Removes every `events` field; returns their sum.
fn strip_events(v: &mut Value) -> u64 {
    match v {
        Value::Object(m) => {
            let own = m.remove("events").and_then(|e| e.as_u64()).unwrap_or(0);
            own + m.values_mut().map(strip_events).sum::<u64>()
        }
        Value::Array(a) => a.iter_mut().map(strip_events).sum(),
        _ => 0,
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and toolchain.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

#[test]
fn lazy_ticks_print_what_per_request_ticks_printed_but_the_event_count() {
    let golden = fixtures().join("lazy-ticks.golden");
    if let Some(bin) = std::env::var_os("REBOUND_BLESS") {
        let lines: Vec<String> = CASES
            .iter()
            .map(|(name, args)| {
                let (hash, events) = fingerprint(Some(Path::new(&bin)), args);
                format!("{name} {hash:016x} {events}")
            })
            .collect();
        std::fs::write(&golden, lines.join("\n") + "\n").unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    let want: Vec<Vec<&str>> = want.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(want.len(), CASES.len(), "one golden line per case");
    let mut differ = Vec::new();
    for ((name, args), line) in CASES.iter().zip(&want) {
        assert_eq!(line[0], *name, "golden lines in the cases' order");
        let (hash, events) = fingerprint(None, args);
        let before: u64 = line[2].parse().unwrap();
        eprintln!("{name}: {events} events (per-request ticks: {before})");
        if format!("{hash:016x}") != line[1] {
            differ.push(*name);
        }
        assert!(events <= before, "{name}: more events than with per-request ticks");
    }
    assert!(
        differ.is_empty(),
        "these cases' JSON differs from the per-request ticks' (events apart): {differ:?}"
    );
}
