//! Exporting retry settings to where people configure retries: Rebound specs, a gRPC service
//! config (gRFC A6) and Envoy's route `retry_policy` with its cluster's `retry_budget`.
//!
//! Why: a policy proven in the lab is only useful once it runs in the stack, and most stacks
//! set their retries in a gRPC service config or an Envoy route, not in Rust. Each format
//! expresses less than a Rebound spec (gRPC stops at 5 attempts and always draws full jitter;
//! Envoy's back-off always doubles and has no token bucket), so [`limits`] tells a search
//! what a format can hold, and [`render`] says in [`Rendered::notes`] every knob it could not
//! write, next to the hop and the field it belongs to. A spec is read by the library's own
//! parser ([`rebound_retry::Spec`]); there is no second grammar here.
//!
//! ```text
//! rebound export --format grpc --hop users=preset:grpc-a6 --hop 'front->api=exponential:base=50ms,max-retries=2,jitter=full'
//! ```

mod command;
mod envoy;
mod grpc;
mod plan;
mod rebound;

pub use command::{run, Args};

use std::time::Duration;

/// Where the settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Rebound specs, one per hop (TOML), for `Spec`'s parser, `RetryMiddleware` or the tower layer.
    Rebound,
    /// A gRPC service config (JSON, gRFC A6): `methodConfig[].retryPolicy`, `retryThrottling`.
    Grpc,
    /// Envoy (JSON): route `retry_policy` and the cluster's `circuit_breakers` `retry_budget`.
    Envoy,
}

/// One hop's retry settings: who retries whom, and the Rebound spec it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop<'a> {
    /// `users` (the users' policy toward the entry service) or `CALLER->CALLEE`.
    pub name: &'a str,
    /// A Rebound policy spec (`exponential:base=100ms,max-retries=3,jitter=full`, `preset:NAME`).
    pub spec: &'a str,
}

/// What a format can express, for a search that must only propose what the export can hold.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ExportLimits {
    /// The most retries per call (gRPC: `maxAttempts` ≤ 5, so 4); `None`: no limit.
    pub max_retries: Option<u32>,
    /// The only backoff multiplier the format has (Envoy: 2); `None`: any multiplier ≥ 1.
    pub multiplier: Option<f64>,
    /// Whether gRPC's token-bucket budget (`budget=grpc:MAX:RATIO`) can be written.
    pub token_bucket: bool,
    /// Whether Brooker's retry breaker (`retry-breaker=`) can be written.
    pub retry_breaker: bool,
    /// Whether a per-attempt timeout can be written.
    pub per_try_timeout: bool,
    /// Whether only full jitter can be written (any other jitter is noted, not exported).
    pub full_jitter_only: bool,
    /// Whether Finagle's percentage budget (`budget=finagle:PERCENT:TTL:MIN_PER_SEC`) can be
    /// written (Envoy's `retry_budget`, a share of the requests in flight).
    pub percent_budget: bool,
    /// Whether every hop of one document must carry the same token bucket (gRPC: one
    /// `retryThrottling` per service config); a search tuning budgets per hop exports one hop
    /// at a time.
    pub one_budget_per_document: bool,
}

/// What `format` can express: gRPC stops at `maxAttempts` 5 (4 retries, gRFC A6), draws full
/// jitter only and throttles with one token bucket per service config; Envoy doubles its
/// back-off (`retry_back_off`, full jitter) and budgets retries as a share of the requests in
/// flight (`retry_budget`), with a per-try timeout; Rebound expresses every spec.
pub fn limits(format: ExportFormat) -> ExportLimits {
    let all = ExportLimits {
        max_retries: None,
        multiplier: None,
        token_bucket: true,
        retry_breaker: true,
        per_try_timeout: true,
        full_jitter_only: false,
        percent_budget: true,
        one_budget_per_document: false,
    };
    match format {
        ExportFormat::Rebound => all,
        ExportFormat::Grpc => ExportLimits {
            max_retries: Some(grpc::MAX_ATTEMPTS - 1),
            retry_breaker: false,
            per_try_timeout: false,
            full_jitter_only: true,
            percent_budget: false,
            one_budget_per_document: true,
            ..all
        },
        ExportFormat::Envoy => ExportLimits {
            multiplier: Some(2.0),
            token_bucket: false,
            retry_breaker: false,
            full_jitter_only: true,
            ..all
        },
    }
}

/// An export: the text to put where the format is configured, and what it could not express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The configuration (TOML for `rebound`, JSON for `grpc` and `envoy`), ending in a newline.
    pub text: String,
    /// One line per knob the format could not express or wrote differently, each starting
    /// `HOP: FIELD:` so that it can be printed next to the value.
    pub notes: Vec<String>,
}

/// Settings beside the specs (all optional).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExportOptions<'a> {
    /// The service the users call, to name the `users` hop's callee (gRPC `service`, Envoy
    /// `cluster`). Without it gRPC gets the channel's default method config (`name: [{}]`) and
    /// Envoy a cluster named `entry`, each with a note.
    pub entry: Option<&'a str>,
    /// Per-attempt timeouts by hop name (the scenario's call `timeout`).
    pub per_try_timeouts: &'a [(&'a str, Duration)],
}

/// Why a set of hops cannot be exported.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ExportError {
    /// A hop's spec does not parse.
    Spec {
        /// The hop.
        hop: String,
        /// The parser's error (it names the key and its valid range).
        error: rebound_retry::ConfigError,
    },
    /// A hop name is not `users` or `CALLER->CALLEE`, or is given twice.
    Hop {
        /// The name given.
        hop: String,
        /// What is wrong.
        reason: String,
    },
    /// A setting the format has no field for at all, so that no output would be faithful.
    Inexpressible {
        /// The format.
        format: &'static str,
        /// The hop (or hops).
        hop: String,
        /// What cannot be written, and what to do instead.
        reason: String,
    },
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Spec { hop, error } => write!(f, "hop `{hop}`: {error}"),
            ExportError::Hop { hop, reason } => write!(f, "hop `{hop}`: {reason}"),
            ExportError::Inexpressible { format, hop, reason } => {
                write!(f, "hop `{hop}` cannot be exported to {format}: {reason}")
            }
        }
    }
}

impl std::error::Error for ExportError {}

/// Renders `hops` in `format`, without per-attempt timeouts and with the users' callee
/// unnamed ([`render_with`] takes both).
///
/// # Errors
/// [`ExportError`]: a spec that does not parse, a bad or repeated hop name, or a setting the
/// format has no field for (a linear or responsive backoff in gRPC or Envoy, ...).
#[allow(
    dead_code,
    reason = "the entry point of `advise --export` (issue 35), merged from the advisor's branch"
)]
pub fn render(format: ExportFormat, hops: &[Hop]) -> Result<Rendered, ExportError> {
    render_with(format, hops, &ExportOptions::default())
}

/// Renders `hops` in `format` with the settings beside the specs.
///
/// # Errors
/// As [`render`]; also a per-attempt timeout for a hop not in `hops`.
pub fn render_with(
    format: ExportFormat,
    hops: &[Hop],
    options: &ExportOptions,
) -> Result<Rendered, ExportError> {
    let plans = plan::plans(hops, options)?;
    match format {
        ExportFormat::Rebound => Ok(rebound::render(&plans)),
        ExportFormat::Grpc => grpc::render(&plans),
        ExportFormat::Envoy => envoy::render(&plans),
    }
}

/// A duration as protobuf's JSON `Duration` (gRPC and Envoy): seconds with up to nine
/// fractional digits, trailing zeros dropped, then `s` (`0.1s`, `1s`, `0.025s`).
pub fn proto_duration(d: Duration) -> String {
    let frac = format!("{:09}", d.subsec_nanos());
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{}s", d.as_secs())
    } else {
        format!("{}.{frac}s", d.as_secs())
    }
}

/// A duration for a note, in humantime's words (`100ms`, `1s 500ms`).
fn human(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

#[cfg(test)]
mod tests;
