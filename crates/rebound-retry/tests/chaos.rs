//! The fault injector: the lab's keys parse from TOML, decisions repeat under a seed, rates
//! land in their binomial interval, and the outage window follows the caller's clock.

use rebound_retry::chaos::{Chaos, ChaosConfig, Fault, Latency, Outage, OutageKind};
use std::time::{Duration, Instant};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A scenario's chaos table, in the lab's keys.
const TOML: &str = r#"
error_rate = 0.1
latency = "lognormal:p50=20ms,p99=120ms"
throttle_rate = 0.05
retry_after = "2s"

[outage]
start = "10s"
end = "20s"
kind = "errors"
error_rate = 0.5
"#;

#[test]
fn the_lab_keys_parse_from_toml() {
    let c: ChaosConfig = toml::from_str(TOML).unwrap();
    assert_eq!(c.error_rate, 0.1);
    assert_eq!(
        c.latency,
        Some(Latency::LogNormal { p50: Duration::from_millis(20), p99: Duration::from_millis(120) })
    );
    assert_eq!(c.retry_after, Some(secs(2)));
    assert_eq!(
        c.outage,
        Some(Outage { start: secs(10), end: secs(20), kind: OutageKind::Errors { error_rate: 0.5 } })
    );
    let down: ChaosConfig =
        toml::from_str("[outage]\nstart = \"1s\"\nend = \"2s\"\nkind = \"hard-down\"\n").unwrap();
    assert_eq!(down.outage.unwrap().kind, OutageKind::HardDown);
    assert!(toml::from_str::<ChaosConfig>("latency = \"uniform:1s\"")
        .unwrap_err()
        .to_string()
        .contains("latency"));
    assert!(toml::from_str::<ChaosConfig>("eror_rate = 0.1").is_err(), "a misspelt key is refused");
}

#[test]
fn out_of_range_fields_are_refused_with_their_name() {
    let cases: [(ChaosConfig, &str); 4] = [
        (ChaosConfig { error_rate: 1.5, ..ChaosConfig::default() }, "error_rate"),
        (ChaosConfig { error_status: 404, ..ChaosConfig::default() }, "error_status"),
        (
            ChaosConfig { retry_after: Some(Duration::from_millis(1500)), ..ChaosConfig::default() },
            "retry_after",
        ),
        (
            ChaosConfig {
                outage: Some(Outage { start: secs(5), end: secs(5), kind: OutageKind::HardDown }),
                ..ChaosConfig::default()
            },
            "outage.end",
        ),
    ];
    for (config, field) in cases {
        let err = Chaos::new(config, 1).unwrap_err().to_string();
        assert!(err.contains(field), "{field}: {err}");
    }
}

fn run(chaos: &Chaos, n: u64, t0: Instant, step: Duration) -> Vec<Fault> {
    (0..n).map(|i| chaos.decide(t0 + step * i as u32)).collect()
}

#[test]
fn the_same_seed_gives_the_same_faults() {
    let c: ChaosConfig = toml::from_str(TOML).unwrap();
    let t0 = Instant::now();
    let a = run(&Chaos::new(c.clone(), 9).unwrap(), 500, t0, Duration::from_millis(50));
    let b = run(&Chaos::new(c.clone(), 9).unwrap(), 500, t0, Duration::from_millis(50));
    let other = run(&Chaos::new(c, 10).unwrap(), 500, t0, Duration::from_millis(50));
    assert_eq!(a, b);
    assert_ne!(a, other);
}

/// Wilson 99.9 % interval of `k` successes in `n` trials.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    let (z, n, p) = (3.29, n as f64, k as f64 / n as f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (centre - half, centre + half)
}

/// Error and throttle shares over 20 000 requests, each within its Wilson interval; during
/// the `errors` window the error share is `1 - (1 - 0.1)(1 - 0.5) = 0.55`.
#[test]
fn rates_match_the_config_within_their_interval() {
    let c: ChaosConfig = toml::from_str(TOML).unwrap();
    let chaos = Chaos::new(c, 3).unwrap();
    let t0 = Instant::now();
    let share = |faults: &[Fault], status: u16| {
        let k =
            faults.iter().filter(|f| matches!(f, Fault::Answer { status: s, .. } if *s == status)).count();
        wilson(k as u64, faults.len() as u64)
    };
    // 20 000 requests over the first 10 s (before the window).
    let before = run(&chaos, 20_000, t0, Duration::from_micros(499));
    let (lo, hi) = share(&before, 503);
    assert!(lo <= 0.1 && 0.1 <= hi, "error share interval ({lo}, {hi})");
    let (lo, hi) = share(&before, 429);
    let throttled = 0.9 * 0.05; // a throttle is drawn only for requests not failed
    assert!(lo <= throttled && throttled <= hi, "429 share interval ({lo}, {hi})");
    let during = run(&chaos, 20_000, t0 + secs(10), Duration::from_micros(499));
    let (lo, hi) = share(&during, 503);
    assert!(lo <= 0.55 && 0.55 <= hi, "error share in the window ({lo}, {hi})");
    assert!(during
        .iter()
        .all(|f| !matches!(f, Fault::Answer { retry_after, .. } if *retry_after != Some(secs(2)))));
}

#[test]
fn hard_down_answers_at_once_inside_the_window_only() {
    let c = ChaosConfig {
        latency: Some("constant:30ms".parse().unwrap()),
        outage: Some(Outage { start: secs(10), end: secs(20), kind: OutageKind::HardDown }),
        ..ChaosConfig::default()
    };
    let chaos = Chaos::new(c, 1).unwrap();
    let t0 = Instant::now();
    let pass = Fault::Pass { delay: Duration::from_millis(30) };
    assert_eq!(chaos.decide(t0), pass);
    assert_eq!(
        chaos.decide(t0 + secs(10)),
        Fault::Answer { delay: Duration::ZERO, status: 503, retry_after: None }
    );
    assert_eq!(chaos.decide(t0 + secs(20)), pass);
}

#[test]
fn a_capacity_cut_multiplies_the_latency() {
    let c = ChaosConfig {
        latency: Some("constant:30ms".parse().unwrap()),
        outage: Some(Outage {
            start: secs(1),
            end: secs(2),
            kind: OutageKind::CapacityCut { slowdown: 10.0 },
        }),
        ..ChaosConfig::default()
    };
    let chaos = Chaos::new(c, 1).unwrap();
    let t0 = Instant::now();
    chaos.decide(t0);
    assert_eq!(
        chaos.decide(t0 + Duration::from_millis(1500)),
        Fault::Pass { delay: Duration::from_millis(300) }
    );
}
