//! Peers' default retry behaviours by name: `preset:NAME` in the spec grammar.
//!
//! Why: "what would the AWS SDK do here?" is the first question about a retry storm, and the
//! answer should be one word in the lab, not a spec copied by hand. Each preset expands to an
//! ordinary spec (policy, budget, throttle), so `rebound schedule`, `rebound storm --policy`,
//! scenario files and `advise` evidence take it as they take any spec; each cites its source.
//!
//! | preset | spec | source |
//! |---|---|---|
//! | `aws-standard` | `exponential:base=1s,factor=2,cap=20s,jitter=full,max-attempts=3,budget=aws:500` | botocore `retries/standard.py` before 2026 (`ExponentialBackoff`, `DEFAULT_MAX_ATTEMPTS`, `RetryQuotaChecker`), smithy-rs `RetrySpec::v2_0` and `token_bucket.rs` legacy costs, aws-sdk-go-v2 `aws/retry/standard.go`; [`crate::aws`] |
//! | `aws-2026` | `exponential:base=50ms,factor=2,cap=20s,jitter=full,max-attempts=3,budget=aws-2026:500` | the same files with `AWS_NEW_RETRIES_2026` (botocore `non_throttling_base_scale`, `_RETRY_COST_V2`; smithy-rs `RetrySpec::v2_1`, `DEFAULT_RETRY_COST`; aws-sdk-go-v2 `retry2026_test.go`) |
//! | `aws-2026-dynamodb` | `exponential:base=25ms,factor=2,cap=20s,jitter=full,max-attempts=4,budget=aws-2026:500` | the same, botocore `_SERVICE_BACKOFF_CONFIG['dynamodb']`, `_SERVICE_MAX_ATTEMPTS['dynamodb']`; smithy-rs `DynamoDbDecorator.kt` |
//! | `aws-adaptive` | `aws-standard` + `throttle=cubic` | botocore `retries/adaptive.py`: standard mode plus the CUBIC client rate limiter ([`crate::throttle`]) |
//! | `grpc-a6` | `exponential:base=100ms,factor=2,cap=1s,jitter=full,max-attempts=4,budget=grpc:10:0.1` | gRFC A6 (client retries), its example service config: `maxAttempts` 4, `initialBackoff` 0.1s, `maxBackoff` 1s, `backoffMultiplier` 2, `retryThrottling` `maxTokens` 10, `tokenRatio` 0.1; jitter `random(0, min(...))` |
//! | `backon-default` | `exponential:base=1s,factor=2,cap=60s,max-retries=3` | backon 1.6.0 `src/backoff/exponential.rs`, `ExponentialBuilder::new` (jitter off) |
//! | `backoff-default` | `exponential:base=500ms,factor=1.5,cap=60s,jitter=randomization:0.5,jitter-after-cap=true,max-elapsed=15m` | backoff 0.4.0 `src/default.rs` (`INITIAL_INTERVAL_MILLIS`, `MULTIPLIER`, `MAX_INTERVAL_MILLIS`, `RANDOMIZATION_FACTOR`, `MAX_ELAPSED_TIME_MILLIS`); the randomization applies to the capped interval |
//!
//! Throttling errors back off from 1 s in both AWS modes; a spec has one base, so the AWS
//! presets describe transient errors (what a storm of timeouts meets). [`crate::aws`] has the
//! throttling schedule and the `x-amz-retry-after` clamp.
//!
//! ```
//! use rebound_retry::Spec;
//! let spec: Spec = "preset:aws-2026".parse()?;
//! assert_eq!(spec.policy().unwrap().base(), std::time::Duration::from_millis(50));
//! assert_eq!(spec.budget().unwrap().to_string(), "aws-2026:500");
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

use crate::error::ConfigError;
use crate::spec::Spec;

/// Every preset: its name, the spec it expands to, and its source.
pub const PRESETS: [(&str, &str, &str); 7] = [
    (
        "aws-standard",
        "exponential:base=1s,factor=2,cap=20s,jitter=full,max-attempts=3,budget=aws:500",
        "botocore retries/standard.py (pre-2026 standard mode)",
    ),
    (
        "aws-2026",
        "exponential:base=50ms,factor=2,cap=20s,jitter=full,max-attempts=3,budget=aws-2026:500",
        "botocore retries/standard.py with AWS_NEW_RETRIES_2026",
    ),
    (
        "aws-2026-dynamodb",
        "exponential:base=25ms,factor=2,cap=20s,jitter=full,max-attempts=4,budget=aws-2026:500",
        "botocore retries/standard.py with AWS_NEW_RETRIES_2026, DynamoDB settings",
    ),
    (
        "aws-adaptive",
        "exponential:base=1s,factor=2,cap=20s,jitter=full,max-attempts=3,budget=aws:500,throttle=cubic",
        "botocore retries/adaptive.py (standard mode + CUBIC rate limiter)",
    ),
    (
        "grpc-a6",
        "exponential:base=100ms,factor=2,cap=1s,jitter=full,max-attempts=4,budget=grpc:10:0.1",
        "gRFC A6 example service config (retryPolicy + retryThrottling)",
    ),
    ("backon-default", "exponential:base=1s,factor=2,cap=60s,max-retries=3", "backon 1.6.0 ExponentialBuilder::new"),
    (
        "backoff-default",
        "exponential:base=500ms,factor=1.5,cap=60s,jitter=randomization:0.5,jitter-after-cap=true,max-elapsed=15m",
        "backoff 0.4.0 src/default.rs",
    ),
];

/// The names, for error messages.
const NAMES: &str =
    "aws-standard, aws-2026, aws-2026-dynamodb, aws-adaptive, grpc-a6, backon-default, backoff-default";

/// The spec preset `name` expands to.
///
/// # Errors
/// [`ConfigError`] naming the field `preset` and the valid names for an unknown name.
pub fn preset(name: &str) -> Result<Spec, ConfigError> {
    let (_, spec, _) = PRESETS
        .iter()
        .find(|(n, _, _)| *n == name.trim())
        .ok_or_else(|| ConfigError::invalid("preset", name, NAMES))?;
    spec.parse()
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    #[test]
    fn every_preset_parses_and_round_trips() {
        for (name, spec, _) in PRESETS {
            let s = preset(name).unwrap();
            assert_eq!(s, spec.parse::<Spec>().unwrap(), "{name}");
            assert_eq!(s.to_string().parse::<Spec>().unwrap(), s, "{name}: canonical form");
            assert!(NAMES.contains(name));
        }
    }

    #[test]
    fn aws_presets_follow_the_aws_module() {
        use crate::aws::AwsRetryMode::*;
        for (name, mode) in [
            ("aws-standard", Standard),
            ("aws-2026", Standard2026),
            ("aws-2026-dynamodb", Standard2026DynamoDb),
        ] {
            assert_eq!(preset(name).unwrap().policy(), Some(&mode.policy()), "{name}");
        }
        assert!(preset("aws-adaptive").unwrap().throttle().is_some());
        assert_eq!(preset("grpc-a6").unwrap().policy().unwrap().cap(), Some(Duration::from_secs(1)));
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let err = "preset:aws-2027".parse::<Spec>().unwrap_err().to_string();
        assert!(err.contains("preset") && err.contains("aws-2026-dynamodb"), "{err}");
    }
}
