//! Policy building, validation, caps, jitter bounds and saturation.

use rebound_retry::{Backoff, ConfigError, Jitter, Policy, Spec};
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn err(spec: &str) -> String {
    spec.parse::<Spec>().unwrap_err().to_string()
}

#[test]
fn bad_values_name_the_field_and_range() {
    assert_eq!(
        Policy::exponential(ms(1), f64::NAN).build().unwrap_err().to_string(),
        "invalid `factor` = NaN: must be a finite number >= 1"
    );
    assert!(Policy::exponential(ms(1), 0.5).build().unwrap_err().to_string().contains("`factor` = 0.5"));
    assert!(Policy::exponential(ms(1), f64::INFINITY).build().is_err());
    assert_eq!(
        Policy::constant(ms(100)).cap(ms(10)).build().unwrap_err().to_string(),
        "invalid `cap` = 10ms: must be >= `base` (100ms)"
    );
    assert!(Policy::constant(ms(1))
        .max_attempts(0)
        .build()
        .unwrap_err()
        .to_string()
        .contains("max-attempts"));
    assert!(Policy::constant(ms(1))
        .jitter(Jitter::Randomization { factor: 1.5, max: None })
        .build()
        .unwrap_err()
        .to_string()
        .contains("[0, 1]"));
    assert!(Jitter::normal(-0.1).is_err());
}

#[test]
fn bad_specs_name_the_key() {
    assert!(err("exponential:factor=NaN").contains("`factor`"));
    assert!(err("exponential:factor=0.5").contains(">= 1"));
    assert!(err("exponential:factor=two").contains("`factor` = two"));
    assert!(err("exponential:base=-1s").contains("`base`"));
    assert!(err("exponential:base=1s,cap=10ms").contains("`cap`"));
    assert!(err("exponential:jitter=uniform").contains("`jitter`"));
    assert!(err("exponential:jitter=randomization:2").contains("[0, 1]"));
    assert!(err("exponential:max-attempts=0").contains("`max-attempts`"));
    assert!(err("exponential:max-retries=-1").contains("`max-retries`"));
    assert!(err("exponential:colour=red").contains("unknown key `colour`"));
    assert!(err("constant:factor=2").contains("unknown key `factor`"));
    assert!(err("exponential:base").contains("malformed"));
    assert!(err("exponential:base=1s,base=2s").contains("twice"));
    assert!(err("fibonacci").contains("unknown policy kind `fibonacci`"));
    assert!(err("").contains("unknown policy kind"));
    assert!(err("responsive:down=1.5").contains("`down`"));
    assert!(err("responsive:threshold=0").contains("`threshold`"));
    assert!(err("responsive:initial=1s,max=10ms").contains("`max`"));
    assert!(matches!("linear:stop-at=0".parse::<Spec>(), Err(ConfigError::Invalid { field: "stop-at", .. })));
}

#[test]
fn spec_defaults_and_round_trip() {
    let p: Policy = "exponential".parse().unwrap();
    assert_eq!((p.base(), p.cap(), p.jitter()), (ms(100), None, Jitter::None));
    let l: Policy = "linear:base=50ms".parse().unwrap();
    assert_eq!(l.backoff().take(3).collect::<Vec<_>>(), [ms(50), ms(100), ms(150)]);
    for s in [
        "constant:base=100ms",
        "linear:base=1s,step=500ms,cap=1m,max-retries=3",
        "exponential:base=1s500ms,factor=2.5,cap=1m,jitter=randomization:0.3:2m,max-elapsed=10m,stop-at=30s",
        "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
        "exponential:base=10ms,factor=2,jitter=normal:0.1",
        "responsive:initial=1ms,max=15m,up=1.5,down=0.6,threshold=5,randomization=0,max-randomization=2m",
    ] {
        let spec: Spec = s.parse().unwrap();
        let again: Spec = spec.to_string().parse().unwrap();
        assert_eq!(spec, again, "{s} -> {spec}");
    }
    assert!("responsive".parse::<Policy>().is_err());
}

#[test]
fn cap_holds_after_every_jitter() {
    let jitters = [
        Jitter::None,
        Jitter::Full,
        Jitter::Equal,
        Jitter::Decorrelated,
        Jitter::Thain,
        Jitter::randomization(1.0, None).unwrap(),
        Jitter::normal(2.0).unwrap(),
        Jitter::normal_abs(Duration::from_secs(5)),
    ];
    for j in jitters {
        let p = Policy::exponential(ms(100), 2.0).cap(ms(1000)).jitter(j).build().unwrap();
        for seed in 0..200 {
            assert!(p.backoff_seeded(seed).take(30).all(|d| d <= ms(1000)), "{j:?}");
        }
    }
}

#[test]
fn jitter_bounds() {
    let base = Policy::exponential(ms(100), 2.0).cap(ms(10_000));
    let full = base.jitter(Jitter::Full).build().unwrap();
    let equal = base.jitter(Jitter::Equal).build().unwrap();
    let deco = base.jitter(Jitter::Decorrelated).build().unwrap();
    for seed in 0..300 {
        for (n, d) in full.backoff_seeded(seed).take(10).enumerate() {
            assert!(d <= full.nominal_delay(n as u64));
        }
        for (n, d) in equal.backoff_seeded(seed).take(10).enumerate() {
            let nominal = equal.nominal_delay(n as u64);
            assert!(d >= nominal / 2 && d <= nominal);
        }
        let mut prev = ms(100);
        for d in deco.backoff_seeded(seed).take(20) {
            assert!(d >= ms(100) && d <= (prev * 3).min(ms(10_000)), "{d:?} after {prev:?}");
            prev = d;
        }
    }
}

#[test]
fn seeded_backoffs_are_reproducible() {
    let p: Policy = "exponential:base=100ms,cap=10s,jitter=full".parse().unwrap();
    let a: Vec<_> = p.backoff_seeded(42).take(10).collect();
    let b: Vec<_> = p.backoff_seeded(42).take(10).collect();
    let c: Vec<_> = p.backoff_seeded(43).take(10).collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn huge_retry_numbers_saturate() {
    let capped = Policy::exponential(ms(100), 2.0).cap(Duration::from_secs(60)).build().unwrap();
    assert_eq!(capped.nominal_delay(1 << 32), Duration::from_secs(60));
    assert_eq!(capped.nominal_delay(u64::MAX), Duration::from_secs(60));
    let uncapped = Policy::exponential(ms(100), 2.0).build().unwrap();
    assert_eq!(uncapped.nominal_delay(1 << 32), Duration::from_nanos(u64::MAX));
    let linear = Policy::linear(ms(1), ms(1)).build().unwrap();
    assert_eq!(linear.nominal_delay(1 << 32), Duration::from_millis((1 << 32) + 1));
    // Iterating far past overflow keeps yielding the saturated delay.
    let mut b = uncapped.backoff();
    let last = (&mut b).take(5000).last().unwrap();
    assert_eq!(last, Duration::from_nanos(u64::MAX));
    assert_eq!(b.retries(), 5000);
    let mut full = Policy::exponential(ms(100), 10.0).jitter(Jitter::Full).build().unwrap().backoff_seeded(1);
    assert!((&mut full).take(2000).all(|d| d <= Duration::from_nanos(u64::MAX)));
}

#[test]
fn stop_conditions() {
    let p = Policy::constant(ms(1)).max_retries(0).build().unwrap();
    assert_eq!(p.backoff().next_delay(), None);
    let p = Policy::constant(ms(1)).max_attempts(3).max_retries(5).build().unwrap();
    assert_eq!(p.backoff().count(), 2);
    let p = Policy::exponential(ms(100), 2.0).stop_at(ms(800)).jitter(Jitter::Full).build().unwrap();
    assert_eq!(p.backoff().count(), 3); // 100, 200, 400 nominal; 800 is not < 800
    let p: Policy = "constant:base=1s,max-elapsed=10s".parse().unwrap();
    assert_eq!(p.backoff().max_elapsed(), Some(Duration::from_secs(10)));
}
