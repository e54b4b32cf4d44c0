//! Every header parser: `Retry-After` (RFC 9110 §10.2.3), retryable status lists, the
//! idempotent-method check and gRPC's `grpc-retry-pushback-ms` (gRFC A6). None may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_retry::budget::grpc_pushback;
use rebound_retry::http::{is_idempotent_method, parse_retry_after, RetryableStatuses};
use std::time::{Duration, SystemTime};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for now in [SystemTime::UNIX_EPOCH, SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_400)] {
        let _ = parse_retry_after(text, now);
    }
    if let Ok(set) = text.parse::<RetryableStatuses>() {
        assert!(set.iter().all(|c| (100..=999).contains(&c)));
    }
    let _ = is_idempotent_method(text);
    let _ = grpc_pushback(text);
});
