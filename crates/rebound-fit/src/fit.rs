//! The counts into the model: services in call order from the entry, each with its own time
//! fitted (log-normal when its KS distance is at most [`crate::KS_MAX`], else a quantile table),
//! errors and concurrency; each edge with its fan-out, retries and timeout.

use crate::acc::{Acc, EdgeAcc, USERS};
use crate::error::{FitError, Warnings};
use crate::model::{EdgeFit, Fit, Input, ServiceFit, TimeFit, Users, Window};
use crate::span::Names;
use crate::stats::ks_lognormal;
use crate::stats::reservoir::quantile;
use std::collections::{BTreeSet, HashMap};

/// The percentiles of an `empirical` service time.
pub const EMPIRICAL_PERCENTILES: [f64; 12] =
    [0.0, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0];
/// The shortest service time written: 1 µs (the scenario's durations are > 0).
const MIN_TIME: f64 = 1e-6;

/// Builds the model from the counts.
///
/// # Errors
/// [`FitError::Empty`] when no trace (or no root) was analysed.
pub fn build(
    mut acc: Acc,
    names: &Names,
    input: Input,
    workers: &HashMap<String, u32>,
) -> Result<Fit, FitError> {
    if acc.traces == 0 {
        return Err(FitError::Empty(format!(
            "{} spans read, {} traces outside --window",
            input.spans_read, input.traces_outside_window
        )));
    }
    let Some((&entry, &entry_roots)) = acc.entries.iter().max_by_key(|(&s, &n)| (n, std::cmp::Reverse(s)))
    else {
        return Err(FitError::Empty("no root span reaches a service (every trace misses its root)".into()));
    };
    let name = |s: u32| if s == USERS { "users".to_string() } else { names.name(s).to_string() };
    let order = call_order(entry, &acc);
    let window = Window {
        start_unix_s: acc.first as f64 / 1e9,
        end_unix_s: acc.last as f64 / 1e9,
        seconds: (acc.last - acc.first) as f64 / 1e9,
    };
    let a = acc.arrivals.fit(acc.first, acc.last);
    let users_edge = acc.edges.get(&(USERS, entry));
    let users = Users {
        entry: name(entry),
        entry_roots,
        roots: acc.arrivals.total,
        rate_per_s: a.rate,
        dispersion: a.dispersion,
        bucket_s: a.bucket_s,
        arrivals: if a.constant { "constant" } else { "poisson" },
        phases: a.phases,
        retries: users_edge.map(EdgeAcc::retries),
        timeout_s: users_edge.and_then(timeout_of).map(|t| t.0),
    };
    let mut services = Vec::new();
    for &s in &order {
        let ext_mean = acc.edges.iter().filter(|((_, to), _)| *to == s).map(|(_, e)| e.attempt_m.mean).next();
        let svc = acc.services.get_mut(&s);
        let (requests, errors, own_errors, max_c) = match svc {
            Some(v) => (v.requests, v.errors, v.own_errors, v.sweep.finish()),
            None => (0, 0, 0, 0),
        };
        let own_time = match acc.services.get(&s) {
            Some(v) if v.requests > 0 => Some(time_fit(&v.own.sorted(), v.own_m.n, v.own_m.mean)),
            _ => ext_mean.map(external_time),
        };
        let given = workers.get(names.name(s)).copied();
        let rate = |n: u64| if requests == 0 { 0.0 } else { n as f64 / requests as f64 };
        services.push(ServiceFit {
            name: name(s),
            requests,
            own_time,
            error_rate: rate(errors),
            own_error_rate: rate(own_errors),
            max_concurrency: max_c,
            workers: given.unwrap_or(max_c.clamp(1, rebound_sim::graph::MAX_WORKERS as u64) as u32),
            workers_given: given.is_some(),
        });
    }
    let mut edges = Vec::new();
    for &from in std::iter::once(&USERS).chain(order.iter()) {
        let requests = acc.services.get(&from).map_or(0, |v| v.requests);
        for (&(f, to), e) in acc.edges.range((from, 0)..=(from, u32::MAX)) {
            if f == from && from != USERS {
                edges.push(edge_fit(name(from), name(to), requests, e));
            }
        }
    }
    Ok(Fit { input, window, users, services, edges })
}

/// Services reached from the entry, breadth first (calls in callee order), then any others.
fn call_order(entry: u32, acc: &Acc) -> Vec<u32> {
    let mut seen = BTreeSet::from([entry]);
    let mut order = vec![entry];
    let mut i = 0;
    while i < order.len() {
        let from = order[i];
        for &(_, to) in acc.edges.keys().filter(|(f, _)| *f == from) {
            if seen.insert(to) {
                order.push(to);
            }
        }
        i += 1;
    }
    let rest: BTreeSet<u32> =
        acc.services.keys().chain(acc.edges.keys().flat_map(|(a, b)| [a, b])).copied().collect();
    order.extend(rest.into_iter().filter(|s| *s != USERS && seen.insert(*s)));
    order
}

fn edge_fit(from: String, to: String, requests: u64, e: &EdgeAcc) -> EdgeFit {
    let calls = e.calls();
    let with: u64 = e.fanout[1..].iter().sum();
    let requests = requests.max(with);
    let mut fanout: Vec<f64> = e.fanout.iter().map(|&n| n as f64 / requests.max(1) as f64).collect();
    fanout[0] = (requests - with) as f64 / requests.max(1) as f64;
    while fanout.len() > 2 && fanout.last() == Some(&0.0) {
        fanout.pop();
    }
    let fanout_mean = calls as f64 / requests.max(1) as f64;
    let probabilities = entry_probabilities(&fanout);
    let timeout = timeout_of(e);
    EdgeFit {
        from,
        to,
        requests,
        calls,
        fanout_mean,
        fanout,
        attempts: e.attempt_m.n,
        entries: probabilities.len() as u32,
        probabilities,
        retries: e.retries(),
        timeout_s: timeout.map(|t| t.0),
        timeout_n: timeout.map_or(0, |t| t.1),
        attempt_mean_s: e.attempt_m.mean,
    }
}

/// The probabilities of the `[[service.call]]` entries for a fan-out distribution (`fanout[k]`:
/// the share of requests making `k` calls): entry `i` (from 1) gets `P(calls ≥ i)`, so their
/// sum is the mean fan-out, `Σ P(K ≥ i) = E[K]`. Past [`rebound_sim::graph::MAX_CALLS`] entries
/// the last takes the rest of the mean (at most 1).
pub fn entry_probabilities(fanout: &[f64]) -> Vec<f64> {
    let most = fanout.iter().rposition(|&p| p > 0.0).unwrap_or(1).max(1);
    let at_least = |i: usize| fanout.iter().skip(i).sum::<f64>().min(1.0);
    let max = rebound_sim::graph::MAX_CALLS;
    let mut p: Vec<f64> = (1..=most.min(max)).map(at_least).collect();
    if most > max {
        p[max - 1] = (max..=most).map(at_least).sum::<f64>().min(1.0);
    }
    p
}

/// A service time from a sample of own times.
fn time_fit(sorted: &[f64], n: u64, mean: f64) -> TimeFit {
    let v: Vec<f64> = sorted.iter().map(|&x| x.max(MIN_TIME)).collect();
    let ln = ks_lognormal(&v);
    let q = |p: f64| quantile(&v, p).unwrap_or(MIN_TIME);
    let (p50_s, p99_s) = (q(0.5), q(0.99));
    let (form, service_time) = match ln {
        Some(f) if f.ks <= crate::KS_MAX => (
            "lognormal",
            format!(
                "lognormal:p50={},p99={}",
                crate::fmt_duration(f.p50()),
                crate::fmt_duration(f.p99().max(f.p50()))
            ),
        ),
        _ if v.len() >= 2 && v[0] < v[v.len() - 1] => {
            let points: Vec<String> = EMPIRICAL_PERCENTILES
                .iter()
                .map(|&p| format!("p{p}={}", crate::fmt_duration(q(p / 100.0))))
                .collect();
            ("empirical", format!("empirical:{}", points.join(",")))
        }
        _ => ("constant", format!("constant:{}", crate::fmt_duration(mean.max(MIN_TIME)))), // all alike
    };
    TimeFit { n, sample: v.len(), mean_s: mean, p50_s, p99_s, ks: ln.map(|f| f.ks), form, service_time }
}

/// A peer seen only from its callers: its time is the callers' mean attempt, exponential.
fn external_time(mean: f64) -> TimeFit {
    let m = mean.max(MIN_TIME);
    TimeFit {
        n: 0,
        sample: 0,
        mean_s: m,
        p50_s: m * std::f64::consts::LN_2,
        p99_s: m * 100f64.ln(),
        ks: None,
        form: "exponential",
        service_time: format!("exponential:{}", crate::fmt_duration(m)),
    }
}

/// An edge's per-attempt timeout: the duration its unanswered attempts share
/// ([`common_duration`]), unless an attempt of the edge lasted longer than it (more than 5 %
/// and 5 ms past it, room for the caller's lateness in ending a timed-out span): no attempt
/// outlasts its timeout, so a short common duration of failures that came back at once (lost
/// connections) is not one. Seen 2026-11-29: three front → api connection errors at 189 µs
/// were written as a 189 µs timeout, where the edge's answered attempts took milliseconds, and
/// `storm` on that scenario timed out every call.
pub fn timeout_of(e: &EdgeAcc) -> Option<(f64, usize)> {
    common_duration(&e.failed_durations.sorted()).filter(|&(t, _)| none_outlast(t, e.attempt_m.max))
}

/// Whether no attempt outlasted a timeout `t` (s) — the longest lasting `longest` (s) — by more
/// than 5 % and 5 ms.
fn none_outlast(t: f64, longest: f64) -> bool {
    longest <= t * 1.05 + 0.005
}

/// The duration most failed attempts share (within 2 %): `(its median, how many)`, when at
/// least 3 and a fifth of the failures share it (a timeout).
pub fn common_duration(sorted: &[f64]) -> Option<(f64, usize)> {
    let mut best = (0, 0);
    let mut j = 0;
    for i in 0..sorted.len() {
        j = j.max(i);
        while j < sorted.len() && sorted[j] <= sorted[i] * 1.02 {
            j += 1;
        }
        if j - i > best.1 - best.0 {
            best = (i, j);
        }
    }
    let n = best.1 - best.0;
    (n >= 3 && n * 5 >= sorted.len()).then(|| (sorted[best.0 + n / 2], n))
}

/// The warnings of reading and of analysis, together.
pub fn merge(mut a: Warnings, b: Warnings) -> Warnings {
    for (k, w) in b.0 {
        let e = a.0.entry(k).or_default();
        e.count += w.count;
        e.first.extend(w.first);
        e.first.truncate(Warnings::KEEP);
    }
    a
}

#[cfg(test)]
mod tests;
