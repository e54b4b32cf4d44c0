//! Properties of the server-signal parsers: no header value panics, and no header makes an
//! executor wait longer than its hint ceiling — above it the executor gives up with the hint.

use proptest::prelude::*;
use rebound_retry::http::{ServerSignals, SIGNAL_HEADERS};
use rebound_retry::{retry, GiveUp, ManualClock, Policy};
use std::time::{Duration, SystemTime};

/// Header values: arbitrary text, numbers of every size and sign, and structured-field shapes.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,40}",
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "[0-9]{1,30}",
        (any::<i64>(), any::<i64>(), any::<i64>())
            .prop_map(|(r, t, q)| format!(r#""p";r={r};t={t};q={q};w={t};pk=:YWJj:"#)),
        ("[a-z]{0,3}", "[0-9-]{0,20}", "[0-9.-]{0,8}")
            .prop_map(|(k, a, b)| format!(r#""{k}";r={a};t={b}, "x";r=0"#)),
        "(Mon|Wed), [0-9]{2} (Jan|Oct) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT",
    ]
}

fn headers() -> impl Strategy<Value = Vec<Option<String>>> {
    proptest::collection::vec(proptest::option::of(value()), SIGNAL_HEADERS.len())
}

fn signals(values: &[Option<String>], now: SystemTime) -> ServerSignals {
    ServerSignals::from_headers(
        |name| SIGNAL_HEADERS.iter().position(|h| *h == name).and_then(|i| values[i].as_deref()),
        now,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_header_makes_a_wait_exceed_the_ceiling(
        values in headers(),
        ceiling_ms in 0u64..120_000,
        now_s in 0u64..4_000_000_000,
    ) {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(now_s);
        let s = signals(&values, now);
        let hint = s.wait_hint();
        let ceiling = Duration::from_millis(ceiling_ms);
        let policy = Policy::exponential(Duration::from_millis(1), 2.0)
            .cap(ceiling)
            .max_retries(3)
            .build()
            .unwrap();
        let clock = ManualClock::new();
        let mut waits = Vec::new();
        let err = retry(policy.backoff(), || Err::<(), _>(()))
            .hint(|_: &()| hint)
            .hint_ceiling(ceiling)
            .notify(|e: &rebound_retry::RetryEvent<'_, ()>| waits.push(e.delay))
            .sleeper(&clock)
            .clock(&clock)
            .call()
            .unwrap_err();
        prop_assert!(waits.iter().all(|w| *w <= ceiling), "{waits:?} > {ceiling:?}");
        match hint {
            Some(h) if h > ceiling => {
                prop_assert_eq!(err.reason, GiveUp::HintAboveCeiling { hint: h, ceiling });
                prop_assert!(waits.is_empty());
            }
            _ => prop_assert_eq!(err.reason, GiveUp::Exhausted),
        }
    }

    #[test]
    fn every_parser_takes_any_text(v in any::<String>(), now_s in any::<u64>()) {
        let now = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(now_s)).unwrap_or(SystemTime::UNIX_EPOCH);
        let all = vec![Some(v); SIGNAL_HEADERS.len()];
        let s = signals(&all, now);
        let _ = (s.wait_hint(), s.do_not_retry());
        for item in &s.ratelimit {
            let _ = s.policy_for(item);
        }
    }
}
