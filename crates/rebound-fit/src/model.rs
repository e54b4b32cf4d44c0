//! The fitted model, as data (`rebound fit --json`): where the numbers came from (spans, window,
//! warnings), the users, each service and each call edge, with the fit's quality beside each.

use crate::error::Warnings;
use crate::stats::arrivals::Phase;
use crate::stats::RetryFit;
use serde::Serialize;

/// A whole fit.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fit {
    /// What was read.
    pub input: Input,
    /// The window the traces cover.
    pub window: Window,
    /// The users: arrivals and the service they call.
    pub users: Users,
    /// The services, the entry first.
    pub services: Vec<ServiceFit>,
    /// The call edges, in the services' order.
    pub edges: Vec<EdgeFit>,
}

/// What was read, and what was dropped.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Input {
    /// The files (or `--listen`'s address).
    pub files: Vec<String>,
    /// Spans read.
    pub spans_read: u64,
    /// Spans in the traces analysed.
    pub spans_used: u64,
    /// Spans read but not used (dropped at reading, or in traces outside `--window`).
    pub spans_dropped: u64,
    /// Traces analysed.
    pub traces: u64,
    /// Traces outside `--window`.
    pub traces_outside_window: u64,
    /// Counted warnings, by kind.
    pub warnings: Warnings,
}

/// The window analysed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Window {
    /// Its start: the earliest span start, in seconds since the Unix epoch.
    pub start_unix_s: f64,
    /// Its end: the latest span end, in seconds since the Unix epoch.
    pub end_unix_s: f64,
    /// Its length, in seconds.
    pub seconds: f64,
}

/// The users.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Users {
    /// The service they call (the most roots reach).
    pub entry: String,
    /// Roots that reached it, of all roots.
    pub entry_roots: u64,
    /// All roots (each trace's first span): the users' requests.
    pub roots: u64,
    /// Roots per second over the window.
    pub rate_per_s: f64,
    /// Variance over mean of the counts per `bucket_s` (1: Poisson); `None` when the window
    /// holds fewer than 3 whole buckets.
    pub dispersion: Option<f64>,
    /// The bucket, in seconds.
    pub bucket_s: u64,
    /// `poisson` or `constant`.
    pub arrivals: &'static str,
    /// Phases when the rate moves (seconds from the window's start).
    pub phases: Vec<Phase>,
    /// The users' retries, from root client spans (`None` when the roots are server spans: the
    /// users' side is not in the traces).
    pub retries: Option<RetryFit>,
    /// The users' timeout, when failed attempts end at a common duration.
    pub timeout_s: Option<f64>,
}

/// One service.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServiceFit {
    /// Its name (`service.name`, after `--service-map`).
    pub name: String,
    /// Server spans (requests served); 0 for a peer seen only from its callers.
    pub requests: u64,
    /// Its own time per request (span minus its calls).
    pub own_time: Option<TimeFit>,
    /// Requests that failed.
    pub error_rate: f64,
    /// Requests that failed with every call they made answered (the scenario's `error_rate`).
    pub own_error_rate: f64,
    /// The most requests seen at once (a lower bound of its workers).
    pub max_concurrency: u64,
    /// The workers written: `--workers`, else `max_concurrency` (at least 1).
    pub workers: u32,
    /// Whether `workers` came from `--workers`.
    pub workers_given: bool,
}

/// A fitted service-time distribution.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimeFit {
    /// Requests measured.
    pub n: u64,
    /// Values in the sample the fit read (a uniform sample of at most 20 000).
    pub sample: usize,
    /// Mean, in seconds.
    pub mean_s: f64,
    /// Median, in seconds.
    pub p50_s: f64,
    /// 99th percentile, in seconds.
    pub p99_s: f64,
    /// The log-normal's KS distance to the sample.
    pub ks: Option<f64>,
    /// `lognormal` (KS ≤ [`crate::KS_MAX`]) or `empirical`.
    pub form: &'static str,
    /// The scenario's `service_time`.
    pub service_time: String,
}

/// One call edge.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EdgeFit {
    /// The caller.
    pub from: String,
    /// The callee.
    pub to: String,
    /// The caller's requests (server spans).
    pub requests: u64,
    /// Calls made (each with its retries).
    pub calls: u64,
    /// Calls per caller request.
    pub fanout_mean: f64,
    /// `fanout[k]`: the share of caller requests that made `k` calls, k = 0, 1, …
    pub fanout: Vec<f64>,
    /// Attempts (calls and retries).
    pub attempts: u64,
    /// The calls' `[[service.call]]` entries written: the most calls a request made (at most
    /// 16, the scenario's bound).
    pub entries: u32,
    /// Each entry's `probability`: entry `i` (from 1) is made with probability `P(calls ≥ i)`,
    /// so that the written calls' mean is the measured fan-out (and their distribution too when
    /// requests made one of two neighbouring counts; independent draws otherwise).
    pub probabilities: Vec<f64>,
    /// The retries and the policy fitted.
    pub retries: RetryFit,
    /// The per-attempt timeout, when failed attempts end at a common duration.
    pub timeout_s: Option<f64>,
    /// Failed attempts at that duration.
    pub timeout_n: usize,
    /// Mean attempt duration (client span), in seconds.
    pub attempt_mean_s: f64,
}
