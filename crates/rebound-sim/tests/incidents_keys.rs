//! Issue 26's keys: each bad value is an error naming the key and its range, and a scenario
//! using every key survives a TOML round trip unchanged.

use rebound_sim::Scenario;

const ALL: &str = r#"
duration = "60s"
[clients]
rate = "100/s"
arrivals = "constant"
latency = "exponential:5ms"
loss = 0.01
retry_on = "timeouts"
[[clients.phase]]
start = "10s"
end = "20s"
rate = "200/s"
[[clients.phase]]
start = "30s"
end = "35s"
rate = "0/s"
[[service]]
name = "front"
service_time = "linear:base=1ms,per_in_flight=100us"
error_rate = 0.01
on_full = "drop"
[[service.call]]
to = "back"
latency = "lognormal:p50=1ms,p99=10ms"
loss = 0.001
retry_on = "errors"
[[service]]
name = "back"
[outage]
kind = "load-spike"
factor = 3.5
start = "40s"
end = "45s"
"#;

#[test]
fn every_key_round_trips() {
    let s = Scenario::from_toml(ALL).unwrap();
    let text = toml::to_string(&s).unwrap();
    assert_eq!(Scenario::from_toml(&text).unwrap(), s, "{text}");
    for key in
        ["arrivals", "latency", "loss", "retry_on", "phase", "linear:", "error_rate", "on_full", "factor"]
    {
        assert!(text.contains(key), "{key} missing from\n{text}");
    }
    let errors = ALL.replace("kind = \"load-spike\"\nfactor = 3.5", "kind = \"errors\"\nerror_rate = 0.25");
    let s = Scenario::from_toml(&errors).unwrap();
    assert_eq!(Scenario::from_toml(&toml::to_string(&s).unwrap()).unwrap(), s);
}

#[test]
fn a_default_scenario_writes_none_of_the_new_keys() {
    let text = toml::to_string(&Scenario::default()).unwrap();
    for key in ["arrivals", "latency", "loss", "retry_on", "phase", "error_rate", "on_full"] {
        assert!(!text.contains(key), "{key} in\n{text}");
    }
    assert!(!text.split("[outage]").nth(1).unwrap().contains("factor"), "{text}");
}

#[test]
fn bad_values_name_the_key_and_the_range() {
    let open = |extra: &str| format!("[clients]\nrate = \"100/s\"\n{extra}\n[[service]]\nname = \"a\"\n");
    let closed = |extra: &str| format!("[clients]\n{extra}\n[[service]]\nname = \"a\"\n");
    let svc = |extra: &str| format!("[[service]]\nname = \"a\"\n{extra}\n");
    let call = |extra: &str| {
        format!(
            "[[service]]\nname = \"a\"\n[[service.call]]\nto = \"b\"\n{extra}\n[[service]]\nname = \"b\"\n"
        )
    };
    let phase = |body: &str| format!("[[clients.phase]]\n{body}");
    let cases: Vec<(String, &str, &str)> = vec![
        (open("arrivals = \"uniform\""), "arrivals", "poisson"),
        (closed("arrivals = \"constant\""), "clients.arrivals", "open loop"),
        (open(&phase("start = \"10s\"\nend = \"5s\"\nrate = \"1/s\"")), "clients.phase.end", "after its start"),
        (open(&phase("start = \"10s\"\nend = \"200s\"\nrate = \"1/s\"")), "clients.phase.end", "at most duration"),
        (
            open(&format!(
                "{}\n{}",
                phase("start = \"10s\"\nend = \"20s\"\nrate = \"1/s\""),
                phase("start = \"15s\"\nend = \"25s\"\nrate = \"1/s\"")
            )),
            "clients.phase.start",
            "not overlapping",
        ),
        (open(&phase("start = \"10s\"\nend = \"20s\"\ncount = 5")), "clients.phase.rate", "open loop"),
        (closed(&phase("start = \"10s\"\nend = \"20s\"\nrate = \"1/s\"")), "clients.phase.count", "closed loop"),
        (closed(&phase("start = \"10s\"\nend = \"20s\"\ncount = 20000000")), "clients.phase.count", "[0, 10000000]"),
        (open(&phase("start = \"10s\"\nend = \"20s\"\nrate = \"-1/s\"")), "rate", "0/s"),
        (closed("count = 5000000\n[outage]\nkind = \"load-spike\"\nfactor = 3"), "clients.count", "10000000 users"),
        (closed("count = 500000\nthink = \"1s\"\n[outage]\nkind = \"load-spike\"\nfactor = 3"), "clients.think", "/ 1000000 s"),
        ("[outage]\nkind = \"load-spike\"\nfactor = 0".into(), "outage.factor", "(0, 1000]"),
        ("[outage]\nkind = \"load-spike\"\nfactor = 1001".into(), "outage.factor", "(0, 1000]"),
        ("[outage]\nkind = \"errors\"\nerror_rate = 1.5".into(), "outage.error_rate", "[0, 1]"),
        ("[outage]\nkind = \"flood\"".into(), "kind", "load-spike"),
        (svc("error_rate = -0.1"), "service.error_rate", "[0, 1]"),
        (svc("on_full = \"ignore\""), "on_full", "drop"),
        (svc("service_time = \"s5\"\non_full = \"drop\""), "service.on_full", "backlog_full"),
        (svc("service_time = \"linear:base=0s,per_in_flight=1ms\""), "service_time", "linear:base="),
        (svc("service_time = \"linear:base=1ms\""), "service_time", "per_in_flight"),
        (call("latency = \"s5\""), "service.call.latency", "not s5 or linear"),
        (call("latency = \"linear:base=1ms,per_in_flight=1ms\""), "service.call.latency", "not s5 or linear"),
        (call("loss = 1.01"), "service.call.loss", "[0, 1]"),
        (call("retry_on = \"never\""), "retry_on", "timeouts"),
        (closed("latency = \"s5\""), "clients.latency", "not s5 or linear"),
        (closed("loss = -1"), "clients.loss", "[0, 1]"),
        (closed("retry_on = \"sometimes\""), "retry_on", "errors"),
        (
            "[clients]\nrate = \"10000000/s\"\n[[service]]\nname = \"a\"\n[outage]\nkind = \"load-spike\"\nfactor = 2".into(),
            "clients.rate",
            "10000000 requests/s",
        ),
    ];
    for (text, key, range) in cases {
        let e = Scenario::from_toml(&text).expect_err(&text).to_string();
        assert!(e.contains(key) && e.contains(range), "{text}\n-> {e}\n(want `{key}` and `{range}`)");
    }
}

#[test]
fn the_fuzz_corpus_seeds_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/scenario");
    let mut seen = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        seen += &text;
    }
    for key in [
        "arrivals",
        "phase",
        "load-spike",
        "errors",
        "error_rate",
        "on_full",
        "latency",
        "loss",
        "linear:",
        "retry_on",
    ] {
        assert!(seen.contains(key), "no seed uses {key}");
    }
}

#[test]
fn the_cost_estimate_counts_the_load_profile_the_spike_and_the_network() {
    use rebound_sim::cost::{check, CLI};
    let base = "duration = \"60s\"\n[clients]\nrate = \"1000/s\"\n[[service]]\nname = \"a\"\n";
    let est = |text: &str| check(&Scenario::from_toml(text).unwrap(), &CLI).unwrap();
    let plain = est(base);
    let spiked =
        est(&format!("{base}[outage]\nkind = \"load-spike\"\nfactor = 5\nstart = \"10s\"\nend = \"20s\"\n"));
    assert_eq!((plain.offered_rate, spiked.offered_rate), (1000.0, 5000.0));
    // 10 s at 5x: 40 s more of arrivals, 100,000 more requests.
    assert!((spiked.requests - plain.requests - 40_000.0).abs() < 1.0, "{spiked:?}");
    let phased = base.replace(
        "[[service]]",
        "[[clients.phase]]\nstart = \"0s\"\nend = \"30s\"\nrate = \"0/s\"\n[[service]]",
    );
    assert!((est(&phased).requests - plain.requests / 2.0).abs() < 1.0);
    let slow = base.replace("rate = \"1000/s\"", "rate = \"1000/s\"\nlatency = \"constant:1ms\"");
    assert!(
        est(&slow).events > plain.events * 1.2,
        "an attempt and its answer cross the network: 2 events more"
    );
}
