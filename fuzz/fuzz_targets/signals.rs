//! The server-signal parsers (draft-ietf-httpapi-ratelimit-headers `RateLimit` and
//! `RateLimit-Policy`, `X-RateLimit-Remaining`/`-Reset`, `x-amz-retry-after`), the precedence
//! that combines them (`ServerSignals`), and `preset:NAME`. None may panic, and a preset that
//! resolves must give a spec whose canonical form parses back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_retry::http::{
    parse_ratelimit, parse_ratelimit_policy, parse_x_amz_retry_after, parse_x_ratelimit_remaining,
    parse_x_ratelimit_reset, ServerSignals, SIGNAL_HEADERS,
};
use rebound_retry::Spec;
use std::time::{Duration, SystemTime};


fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let _ = parse_ratelimit(text);
    let _ = parse_ratelimit_policy(text);
    let _ = parse_x_ratelimit_remaining(text);
    let _ = parse_x_ratelimit_reset(text, now);
    let _ = parse_x_amz_retry_after(text);
    // Header lines: the first byte picks the first header, the rest (split on '\n') are values;
    // every other line's name is upper-cased (header names are case-insensitive).
    let first = usize::from(data.first().copied().unwrap_or(0));
    let names: Vec<String> = (0..SIGNAL_HEADERS.len())
        .map(|i| if i % 2 == 0 { SIGNAL_HEADERS[i].to_string() } else { SIGNAL_HEADERS[i].to_ascii_uppercase() })
        .collect();
    let lines: Vec<(&str, &str)> =
        text.split('\n').enumerate().map(|(i, v)| (names[(i + first) % names.len()].as_str(), v)).collect();
    let signals = ServerSignals::from_header_lines(lines.iter().copied(), now);
    let _ = signals.wait_hint();
    let _ = signals.do_not_retry();
    if let Ok(spec) = rebound_retry::preset::preset(text) {
        let again: Spec = spec.to_string().parse().expect("a preset's canonical form parses");
        assert_eq!(again.to_string(), spec.to_string());
    }
});
