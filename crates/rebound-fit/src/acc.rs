//! What the traces add up to, per service and per call edge, in bounded memory: counts,
//! running moments, uniform samples and sweeps ([`crate::stats`]).

use crate::stats::{Arrivals, Moments, Reservoir, Sweep};
use std::collections::{BTreeMap, HashMap};

/// The users (the callers of root client spans), as a caller.
pub const USERS: u32 = u32::MAX;
/// Most calls of one edge per request counted apart (more are counted here).
pub const MAX_FANOUT: usize = 64;
/// Most attempts of one call counted apart (more are counted here).
pub const MAX_ATTEMPTS: usize = 32;
/// Values kept per sample (own service times, failed attempts' durations).
pub const SAMPLE: usize = 20_000;

/// One service's requests (its server spans).
#[derive(Debug, Clone)]
pub struct ServiceAcc {
    /// Server spans.
    pub requests: u64,
    /// Those that failed (status ERROR, HTTP 5xx or 429).
    pub errors: u64,
    /// Those that failed with every call they made answered: the service's own errors.
    pub own_errors: u64,
    /// Own service times, in seconds (span minus the union of its calls).
    pub own: Reservoir,
    /// Their moments.
    pub own_m: Moments,
    /// Requests at once.
    pub sweep: Sweep,
}

impl ServiceAcc {
    fn new(seed: u64) -> ServiceAcc {
        ServiceAcc {
            requests: 0,
            errors: 0,
            own_errors: 0,
            own: Reservoir::new(SAMPLE, seed),
            own_m: Moments::default(),
            sweep: Sweep::default(),
        }
    }
}

/// One call edge, caller → callee.
#[derive(Debug, Clone)]
pub struct EdgeAcc {
    /// `fanout[k]`: caller requests that made `k` calls (k ≥ 1; index 0 unused).
    pub fanout: Vec<u64>,
    /// `attempts[i]`: calls of `i + 1` attempts.
    pub attempts: Vec<u64>,
    /// `failed[i]`: of those, the calls whose last attempt failed.
    pub failed: Vec<u64>,
    /// Gaps before retry `k + 1`, in seconds.
    pub gaps: Vec<Moments>,
    /// A uniform sample of them, at most [`crate::stats::gaps::SAMPLE`] per index: (when, in
    /// seconds since the Unix epoch, the attempt before the gap ended; the gap, in seconds).
    pub gap_samples: Vec<Reservoir<(f64, f64)>>,
    /// Durations of failed attempts that got no HTTP answer (timeouts, lost connections), in
    /// seconds.
    pub failed_durations: Reservoir,
    /// Durations of all attempts, in seconds.
    pub attempt_m: Moments,
    /// Attempts that carried `http.request.resend_count`.
    pub resend_attr: u64,
}

impl EdgeAcc {
    fn new(seed: u64) -> EdgeAcc {
        EdgeAcc {
            fanout: vec![0; MAX_FANOUT + 1],
            attempts: vec![0; MAX_ATTEMPTS],
            failed: vec![0; MAX_ATTEMPTS],
            gaps: vec![Moments::default(); crate::stats::retry::MAX_INDEX],
            gap_samples: (0..crate::stats::retry::MAX_INDEX as u64)
                .map(|k| Reservoir::new(crate::stats::gaps::SAMPLE, seed ^ (k << 56)))
                .collect(),
            failed_durations: Reservoir::new(SAMPLE, seed),
            attempt_m: Moments::default(),
            resend_attr: 0,
        }
    }

    /// One gap before retry `k + 1` (`k` below [`crate::stats::retry::MAX_INDEX`]), in seconds,
    /// after an attempt that ended `at` (seconds since the Unix epoch).
    pub fn gap(&mut self, k: usize, at: f64, secs: f64) {
        self.gaps[k].add(secs);
        self.gap_samples[k].add((at, secs));
    }

    /// The retry fit of this edge's chains.
    pub fn retries(&self) -> crate::stats::RetryFit {
        let samples: Vec<Vec<(f64, f64)>> = self.gap_samples.iter().map(|r| r.values().to_vec()).collect();
        crate::stats::fit_retries(&self.attempts, &self.failed, &self.gaps, &samples)
    }

    /// Calls made in all.
    pub fn calls(&self) -> u64 {
        self.fanout.iter().enumerate().map(|(k, n)| k as u64 * n).sum()
    }
}

/// Everything counted.
#[derive(Debug, Clone, Default)]
pub struct Acc {
    /// Per service (by [`crate::span::Names`] index; [`USERS`] for the users).
    pub services: HashMap<u32, ServiceAcc>,
    /// Per edge (caller, callee).
    pub edges: BTreeMap<(u32, u32), EdgeAcc>,
    /// Root spans' starts.
    pub arrivals: Arrivals,
    /// Roots per entry service.
    pub entries: HashMap<u32, u64>,
    /// Traces analysed.
    pub traces: u64,
    /// Spans analysed.
    pub spans: u64,
    /// Traces outside `--window`.
    pub outside: u64,
    /// The earliest start and latest end analysed, in ns since the epoch.
    pub first: u64,
    /// See `first`.
    pub last: u64,
}

impl Acc {
    /// The service's counters, new when first seen.
    pub fn service(&mut self, s: u32) -> &mut ServiceAcc {
        self.services.entry(s).or_insert_with(|| ServiceAcc::new(0x5e ^ s as u64))
    }

    /// The edge's counters, new when first seen.
    pub fn edge(&mut self, from: u32, to: u32) -> &mut EdgeAcc {
        self.edges.entry((from, to)).or_insert_with(|| EdgeAcc::new(((from as u64) << 32) | to as u64))
    }
}
