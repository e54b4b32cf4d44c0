//! Properties over arbitrary policies and spec strings.

use proptest::prelude::*;
use rebound_retry::{Jitter, Policy, Spec};
use std::time::Duration;

fn jitter() -> impl Strategy<Value = Jitter> {
    prop_oneof![
        Just(Jitter::None),
        Just(Jitter::Full),
        Just(Jitter::Equal),
        Just(Jitter::Decorrelated),
        Just(Jitter::Thain),
        (0.0..=1.0f64).prop_map(|f| Jitter::randomization(f, None).unwrap()),
        (0.0..=10.0f64).prop_map(|j| Jitter::normal(j).unwrap()),
        (0u64..10_000).prop_map(|ms| Jitter::normal_abs(Duration::from_millis(ms))),
    ]
}

proptest! {
    #[test]
    fn capped_policies_never_exceed_the_cap(
        base_ms in 0u64..10_000,
        extra_ms in 0u64..100_000,
        factor in 1.0f64..20.0,
        j in jitter(),
        seed in any::<u64>(),
    ) {
        let cap = Duration::from_millis(base_ms + extra_ms);
        let p = Policy::exponential(Duration::from_millis(base_ms), factor).cap(cap).jitter(j).build().unwrap();
        for d in p.backoff_seeded(seed).take(100) {
            prop_assert!(d <= cap);
        }
        let l = Policy::linear(Duration::from_millis(base_ms), Duration::from_millis(extra_ms / 3))
            .cap(cap).jitter(j).build().unwrap();
        for d in l.backoff_seeded(seed).take(100) {
            prop_assert!(d <= cap);
        }
    }

    #[test]
    fn any_spec_string_parses_or_errors_without_panic(s in "\\PC{0,60}") {
        let _ = s.parse::<Spec>();
    }

    #[test]
    fn spec_shaped_strings_never_panic(
        kind in prop_oneof![Just("constant"), Just("linear"), Just("exponential"), Just("responsive")],
        entries in prop::collection::vec(
            (prop_oneof![
                Just("base"), Just("step"), Just("factor"), Just("cap"), Just("jitter"), Just("max-retries"),
                Just("max-attempts"), Just("max-elapsed"), Just("stop-at"), Just("initial"), Just("max"),
                Just("up"), Just("down"), Just("threshold"), Just("randomization"), Just("max-randomization"),
                Just("jitter-after-cap"),
            ],
            prop_oneof![
                Just("0".to_string()), Just("-1".into()), Just("NaN".into()), Just("inf".into()),
                Just("1e308".into()), Just("18446744073709551616".into()), Just("full".into()),
                Just("normal:0.1".into()), Just("randomization:0.5:1s".into()), Just("decorrelated".into()),
                Just("true".into()), Just("99999999999999h".into()),
                "[0-9]{1,4}(ns|ms|s|m|h)".prop_map(String::from), "[0-9]{1,3}\\.[0-9]{1,3}".prop_map(String::from),
            ]),
            0..6,
        ),
        seed in any::<u64>(),
    ) {
        let body: Vec<String> = entries.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let text = format!("{kind}:{}", body.join(","));
        if let Ok(spec) = text.parse::<Spec>() {
            let again: Spec = spec.to_string().parse().unwrap();
            prop_assert_eq!(&spec, &again);
            if let Some(p) = spec.policy() {
                for d in p.backoff_seeded(seed).take(50) {
                    if let Some(cap) = p.cap() {
                        if !p.jitter_after_cap() { prop_assert!(d <= cap); }
                    }
                }
            }
        }
    }
}
