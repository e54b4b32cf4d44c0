//! `advise`'s inputs, in the form of `rebound advise --config FILE` (keys p99, clients, rate,
//! capacity, recovery; durations in humantime form, rates as `R/s`): any text either fails
//! (to parse, or `Inputs::validate`) with an error, or gives a recommendation, reasoning,
//! alternatives and a storm scenario that are all valid, for every margin the advisor tries
//! (1 to 64), without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_retry::Spec;
use rebound_sim::advise::{alternatives, recommend, scenario, Inputs};
use std::collections::BTreeMap;

/// `rebound-cli`'s `parse_rate`: `R/s` or `R`, a finite number > 0.
fn rate(s: &str) -> Option<f64> {
    let n = s.trim().strip_suffix("/s").unwrap_or(s.trim());
    n.parse::<f64>().ok().filter(|r| r.is_finite() && *r > 0.0)
}

fn inputs(text: &str) -> Option<Inputs> {
    let t: BTreeMap<String, toml::Value> = toml::from_str(text).ok()?;
    let s = |k: &str| t.get(k).and_then(|v| v.as_str());
    Some(Inputs {
        p99: humantime::parse_duration(s("p99")?).ok()?,
        clients: u32::try_from(t.get("clients")?.as_integer()?).ok()?,
        rate: rate(s("rate")?)?,
        capacity: rate(s("capacity")?)?,
        recovery: humantime::parse_duration(s("recovery")?).ok()?,
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(i) = inputs(text) else { return };
    if i.validate().is_err() {
        return;
    }
    for margin in [1, 2, 4, 8, 16, 32, 64] {
        let (spec, reasoning) =
            recommend(&i, margin).unwrap_or_else(|e| panic!("{i:?} margin {margin}: {e}"));
        spec.parse::<Spec>().unwrap_or_else(|e| panic!("{i:?} margin {margin}: {spec:?}: {e}"));
        assert!(!reasoning.is_empty());
    }
    for (label, spec) in alternatives(&i) {
        spec.parse::<Spec>().unwrap_or_else(|e| panic!("{i:?} {label}: {spec:?}: {e}"));
    }
    let s = scenario(&i);
    s.validate().unwrap_or_else(|e| panic!("{i:?}: the storm scenario is invalid: {e}"));
});
