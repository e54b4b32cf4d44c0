//! A service's time per request (`service_time = "lognormal:p50=20ms,p99=120ms"`): its forms,
//! their parsing and printing, and the sampler a run draws from.

use super::empirical::{EmpiricalTable, Quantiles};
use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal};
use std::time::Duration;

/// How long a worker spends on one request (its own work, downstream calls excluded).
// The `empirical` table is held inline (16 points) so that the type stays `Copy`, as the
// scenario's code relies on; it is read once per run, so its size costs nothing measurable.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ServiceTime {
    /// Always the same.
    Constant(Duration),
    /// Exponentially distributed with this mean (a memoryless server: M/M/c).
    Exponential(Duration),
    /// Log-normal with this median and 99th percentile: `σ = ln(p99 / p50) / z₀.₉₉`,
    /// `z₀.₉₉ = 2.3263`.
    LogNormal {
        /// The median.
        p50: Duration,
        /// The 99th percentile, ≥ p50.
        p99: Duration,
    },
    /// A quantile table from data (`empirical:p0=1ms,p50=4ms,p99=30ms,p100=80ms`): from p0 to
    /// p100, percentiles increasing, durations not decreasing, 2 to 16 points; sampled by
    /// linear interpolation between them (`rebound fit` writes it when a log-normal fits
    /// badly).
    Empirical(Quantiles),
    /// S5's server ([`crate::server`]): delay grows with concurrency, per `[server]`; no worker
    /// limit, no queue beyond the accept backlog.
    S5,
    /// `base + per_in_flight × n`, `n` the requests in the service (queued or in service, this
    /// one included) when a worker takes the request, fixed from then on (Brooker's collapse
    /// model: latency that grows with load).
    Linear {
        /// The time at no load, in (0, 1 h].
        base: Duration,
        /// What each request in the service adds, in [0, 1 h].
        per_in_flight: Duration,
    },
}

/// The standard normal's 99th percentile.
const Z99: f64 = 2.326_347_874;

/// A service-time distribution ready to sample, in nanoseconds.
// One per service, built once per run; the `empirical` table inline keeps sampling free of an
// indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum Sampler {
    /// Always this many nanoseconds.
    Constant(f64),
    /// Exponential.
    Exponential(Exp<f64>),
    /// Log-normal.
    LogNormal(LogNormal<f64>),
    /// A quantile table.
    Empirical(EmpiricalTable),
    /// `base + per × in flight`, in nanoseconds.
    Linear {
        /// At no load.
        base: f64,
        /// Per request in the service.
        per: f64,
    },
}

impl Sampler {
    /// One service time, in nanoseconds (at least 1), for a request taken by a worker with
    /// `in_flight` requests in the service (read by `linear` only).
    #[inline]
    pub fn sample<R: Rng>(&self, rng: &mut R, in_flight: u64) -> f64 {
        let v = match self {
            Sampler::Constant(v) => *v,
            Sampler::Exponential(e) => e.sample(rng),
            Sampler::LogNormal(l) => l.sample(rng),
            Sampler::Empirical(t) => t.at(rng.random::<f64>()),
            Sampler::Linear { base, per } => base + per * in_flight as f64,
        };
        v.clamp(1.0, 1e15)
    }
}

impl ServiceTime {
    /// The sampler, or `None` for `s5` (which has no per-request service time).
    pub fn sampler(&self) -> Option<Sampler> {
        let ns = |d: &Duration| d.as_nanos() as f64;
        Some(match self {
            ServiceTime::Constant(d) => Sampler::Constant(ns(d)),
            ServiceTime::Exponential(m) => Sampler::Exponential(Exp::new(1.0 / ns(m)).ok()?),
            ServiceTime::LogNormal { p50, p99 } => {
                let sigma = (ns(p99) / ns(p50)).ln() / Z99;
                Sampler::LogNormal(LogNormal::new(ns(p50).ln(), sigma).ok()?)
            }
            ServiceTime::Linear { base, per_in_flight } => {
                Sampler::Linear { base: ns(base), per: ns(per_in_flight) }
            }
            ServiceTime::Empirical(q) => Sampler::Empirical(q.table()),
            ServiceTime::S5 => return None,
        })
    }

    /// Whether it is a network delay's form: not `s5`, not `linear` (a delay does not depend
    /// on a service's load).
    pub fn is_delay(&self) -> bool {
        !matches!(self, ServiceTime::S5 | ServiceTime::Linear { .. })
    }

    /// The mean service time, for capacity estimates (`None` for `s5`; `linear`: its `base`,
    /// the time at no load).
    pub fn mean(&self) -> Option<Duration> {
        match *self {
            ServiceTime::Constant(d) | ServiceTime::Exponential(d) => Some(d),
            ServiceTime::Linear { base, .. } => Some(base),
            ServiceTime::Empirical(q) => Some(q.mean()),
            ServiceTime::LogNormal { p50, p99 } => {
                let sigma = (p99.as_secs_f64() / p50.as_secs_f64()).ln() / Z99;
                Some(p50.mul_f64((sigma * sigma / 2.0).exp()))
            }
            ServiceTime::S5 => None,
        }
    }
}

mod text;
pub use text::latency_option;
