//! Scenario TOML: any text either fails with an error, or is a valid scenario whose fields all
//! pass `validate` again after a TOML round trip, and whose delay model answers for any
//! concurrency without a panic. The corpus (fuzz/corpus/scenario) seeds every key, issue 26's
//! included (arrivals, phases, load-spike and errors outages, error_rate, on_full, latency,
//! loss, linear service times, retry_on); `incidents_keys.rs` checks the seeds parse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_sim::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(s) = Scenario::from_toml(text) else { return };
    s.validate().expect("from_toml validates");
    let model = s.delay_model();
    for c in [0, 1, 2, 100, 10_000, u64::from(u32::MAX), u64::MAX] {
        let _ = model.delay(c);
    }
    let _ = s.policies_or_default();
    let written = toml::to_string(&s).expect("a valid scenario serializes");
    let back = Scenario::from_toml(&written).unwrap_or_else(|e| panic!("{written}\n-> {e}"));
    assert_eq!(back, s, "{written}");
});
