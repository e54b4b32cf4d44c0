//! The spec grammar (policies, responsive backoff, budgets, throttles): any string either fails
//! to parse with an error, or parses to a spec whose canonical form parses back to the same spec
//! (`Display for Policy`: "parsing it gives back an equal policy"), and whose backoff, budget
//! and throttle run without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;
use rebound_retry::{Backoff, Policy, ResponsiveState, Spec};
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = text.parse::<Policy>();
    let Ok(spec) = text.parse::<Spec>() else { return };
    let canonical = spec.to_string();
    let again: Spec = canonical.parse().unwrap_or_else(|e| panic!("{canonical:?} does not parse: {e}"));
    assert_eq!(again, spec, "{text:?} -> {canonical:?}");
    if let Some(p) = spec.policy() {
        let mut b = p.backoff_seeded(7);
        for retry in 0..64 {
            let _ = p.nominal_delay(retry);
            if b.next_delay().is_none() {
                break;
            }
        }
        let _ = p.nominal_delay(u64::MAX);
    }
    if let Some(r) = spec.responsive() {
        let mut s = ResponsiveState::new_seeded(*r, 7);
        for i in 0..64u32 {
            if i % 3 == 0 {
                let _ = s.on_success();
            } else {
                let _ = s.on_failure();
            }
        }
    }
    let t0 = Instant::now();
    if let Some(Ok(budget)) = spec.budget().map(|b| b.build()) {
        for i in 0..64u64 {
            let now = t0 + Duration::from_millis(i * 97);
            budget.on_request(now);
            budget.on_failure(now);
            let _ = budget.try_retry(now, if i % 2 == 0 { RetryCause::Error } else { RetryCause::Timeout });
            budget.on_success(now, Some(RetryCause::Timeout));
        }
    }
    if let Some(throttle) = spec.throttle() {
        let throttle = throttle.build_seeded(7).expect("a parsed throttle builds");
        for i in 0..64u64 {
            let now = t0 + Duration::from_millis(i * 37);
            if let Admission::Wait(d) = throttle.admit(now) {
                assert!(d < Duration::from_secs(86_400 * 365), "{d:?}");
            }
            throttle.on_response(now, i % 5 == 0);
        }
    }
});
