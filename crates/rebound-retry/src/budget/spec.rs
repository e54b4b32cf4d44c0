//! Budgets in the spec grammar: `budget=grpc:MAX:RATIO`, `budget=finagle:PERCENT:TTL:MIN_PER_SEC`,
//! `budget=aws:CAPACITY`, `budget=aws-2026:CAPACITY`, `budget=redis:URL:KEY:MAX:RATIO`.

use super::{AwsCosts, AwsQuota, FinagleBudget, GrpcBudget, RetryBudget};
use crate::error::ConfigError;
use crate::policy::fmt_duration;
use crate::prelude::*;
use alloc::sync::Arc;
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

const EXPECTED: &str =
    "grpc:MAX:RATIO, finagle:PERCENT:TTL:MIN_PER_SEC, aws:CAPACITY, aws-2026:CAPACITY or redis:URL:KEY:MAX:RATIO";

/// A retry budget's configuration, as written in a spec.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BudgetSpec {
    /// gRPC A6 retry throttling ([`GrpcBudget`]).
    Grpc {
        /// `max_tokens`, in (0, 1000].
        max_tokens: f64,
        /// `token_ratio`, in [0.001, 1000].
        token_ratio: f64,
    },
    /// Finagle's retry budget ([`FinagleBudget`]).
    Finagle {
        /// Retries as a percentage of requests, in [0, 1000].
        percent: f64,
        /// The sliding window, whole seconds in [1 s, 1 h].
        ttl: Duration,
        /// The floor, in retries per second, in [0, 1e6].
        min_per_sec: f64,
    },
    /// The AWS SDKs' retry quota ([`AwsQuota`]).
    Aws {
        /// The bucket's size (the SDKs use 500), 1..=`u64::MAX`.
        capacity: u64,
    },
    /// The AWS SDKs' retry quota as revised in 2026 ([`AwsCosts::REVISED_2026`]).
    Aws2026 {
        /// The bucket's size (the SDKs use 500).
        capacity: u64,
    },
    /// gRPC's token bucket shared by many processes through Redis. Built by the
    /// `rebound-redis` crate, not here.
    Redis {
        /// `redis://host:port/`.
        url: String,
        /// The key holding the bucket.
        key: String,
        /// `max_tokens`.
        max_tokens: f64,
        /// `token_ratio`.
        token_ratio: f64,
    },
}

impl BudgetSpec {
    /// Builds the budget, to share between calls.
    ///
    /// # Errors
    /// Values out of range (see each budget's constructor); a `redis` budget, which the
    /// `rebound-redis` crate builds.
    pub fn build(&self) -> Result<Arc<dyn RetryBudget>, ConfigError> {
        Ok(match *self {
            BudgetSpec::Grpc { max_tokens, token_ratio } => {
                Arc::new(GrpcBudget::new(max_tokens, token_ratio)?)
            }
            BudgetSpec::Finagle { percent, ttl, min_per_sec } => {
                Arc::new(FinagleBudget::new(percent, ttl, min_per_sec)?)
            }
            BudgetSpec::Aws { capacity } => Arc::new(AwsQuota::new(capacity)?),
            BudgetSpec::Aws2026 { capacity } => {
                Arc::new(AwsQuota::with_costs(capacity, AwsCosts::REVISED_2026)?)
            }
            BudgetSpec::Redis { .. } => {
                return Err(ConfigError::invalid(
                    "budget",
                    self,
                    "a local budget here; a redis budget is built by the rebound-redis crate",
                ))
            }
        })
    }
}

fn num(v: &str) -> Result<f64, ConfigError> {
    v.parse::<f64>().ok().filter(|f| f.is_finite()).ok_or_else(|| ConfigError::invalid("budget", v, EXPECTED))
}

impl FromStr for BudgetSpec {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<BudgetSpec, ConfigError> {
        let bad = || ConfigError::invalid("budget", s, EXPECTED);
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let parts: Vec<&str> = rest.split(':').collect();
        let spec = match (kind, parts.as_slice()) {
            ("grpc", [max, ratio]) => BudgetSpec::Grpc { max_tokens: num(max)?, token_ratio: num(ratio)? },
            ("finagle", [percent, ttl, min]) => BudgetSpec::Finagle {
                percent: num(percent)?,
                ttl: crate::spec::parse_duration("budget", ttl)?,
                min_per_sec: num(min)?,
            },
            ("aws", [capacity]) => BudgetSpec::Aws {
                capacity: capacity
                    .parse()
                    .map_err(|_| ConfigError::invalid("budget", s, super::aws::CAPACITY_RANGE))?,
            },
            ("aws-2026", [capacity]) => BudgetSpec::Aws2026 {
                capacity: capacity
                    .parse()
                    .map_err(|_| ConfigError::invalid("budget", s, super::aws::CAPACITY_RANGE))?,
            },
            ("redis", _) => {
                // The URL has colons of its own: KEY, MAX and RATIO are the last three fields.
                let mut tail = rest.rsplitn(4, ':');
                let (ratio, max, key, url) = (tail.next(), tail.next(), tail.next(), tail.next());
                match (url, key, max, ratio) {
                    (Some(url), Some(key), Some(max), Some(ratio)) if !url.is_empty() && !key.is_empty() => {
                        BudgetSpec::Redis {
                            url: url.into(),
                            key: key.into(),
                            max_tokens: num(max)?,
                            token_ratio: num(ratio)?,
                        }
                    }
                    _ => return Err(bad()),
                }
            }
            _ => return Err(bad()),
        };
        // Validate the ranges now, so that a bad spec fails when parsed.
        match &spec {
            BudgetSpec::Redis { max_tokens, token_ratio, .. } => {
                GrpcBudget::new(*max_tokens, *token_ratio)?;
            }
            other => {
                other.build()?;
            }
        }
        Ok(spec)
    }
}

impl fmt::Display for BudgetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetSpec::Grpc { max_tokens, token_ratio } => write!(f, "grpc:{max_tokens}:{token_ratio}"),
            BudgetSpec::Finagle { percent, ttl, min_per_sec } => {
                write!(f, "finagle:{percent}:{}:{min_per_sec}", fmt_duration(*ttl))
            }
            BudgetSpec::Aws { capacity } => write!(f, "aws:{capacity}"),
            BudgetSpec::Aws2026 { capacity } => write!(f, "aws-2026:{capacity}"),
            BudgetSpec::Redis { url, key, max_tokens, token_ratio } => {
                write!(f, "redis:{url}:{key}:{max_tokens}:{token_ratio}")
            }
        }
    }
}
