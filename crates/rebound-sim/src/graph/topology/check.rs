//! One service's keys checked and resolved ([`Topology::new`](super::Topology::new) calls these
//! for each `[[service]]`): its name, workers, queue, refusal cost, error rate, calls and
//! defences, in range, each error naming the key and the service.

use super::super::config::{ServiceConfig, ServiceTime, MAX_CALLS, MAX_QUEUE, MAX_REFUSAL_COST, MAX_WORKERS};
use super::super::network::Link;
use super::{bad, fmt_opt, Edge, Node, RESERVED_NAMES};
use crate::queue::nanos;
use crate::scenario::{Scenario, ScenarioError};

/// `c`'s own keys in range; `unique` if no earlier service has its name.
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the key and the service.
pub(super) fn service(c: &ServiceConfig, unique: bool) -> Result<(), ScenarioError> {
    let at = |v: &dyn std::fmt::Display| at(c, v);
    let chars = c.name.chars().count();
    if chars == 0 || chars > 64 || c.name.chars().any(char::is_control) || !unique {
        return Err(bad(
            "service.name",
            format!("`{}`", c.name.escape_debug()),
            "a unique name of 1 to 64 characters, none of them a control character",
        ));
    }
    // The users' own lines and series are labelled `users`: a service so named would
    // be indistinguishable from them.
    if RESERVED_NAMES.contains(&c.name.as_str()) {
        return Err(bad(
            "service.name",
            format!("`{}`", c.name),
            "a name other than `users`, which is reserved for the users' own lines and series",
        ));
    }
    if c.workers == 0 || c.workers > MAX_WORKERS {
        return Err(bad("service.workers", at(&c.workers), "an integer in [1, 100000]"));
    }
    if c.queue > MAX_QUEUE {
        return Err(bad("service.queue", at(&c.queue), "an integer in [0, 10000000]"));
    }
    if c.refusal_cost > MAX_REFUSAL_COST {
        let v = at(&humantime::format_duration(c.refusal_cost));
        return Err(bad("service.refusal_cost", v, "a duration in [0s, 1h]"));
    }
    if c.service_time == ServiceTime::S5 && !c.refusal_cost.is_zero() {
        return Err(bad("service.refusal_cost", at(&"s5"), "0s for an `s5` service (it has no workers)"));
    }
    if c.calls.len() > MAX_CALLS {
        return Err(bad("service.call", at(&c.calls.len()), "at most 16 calls per service"));
    }
    if c.service_time == ServiceTime::S5 && !c.calls.is_empty() {
        return Err(bad("service.call", at(&"s5"), "no calls from an `s5` service"));
    }
    if !(0.0..=1.0).contains(&c.error_rate) {
        return Err(bad("service.error_rate", at(&c.error_rate), "a probability in [0, 1]"));
    }
    if c.service_time == ServiceTime::S5 && c.on_full == super::super::OnFull::Drop {
        return Err(bad(
            "service.on_full",
            at(&"drop"),
            "error for an `s5` service (its accept backlog follows [server] backlog_full)",
        ));
    }
    Ok(())
}

/// A value of service `c`'s key, as messages show it: escaped (names reach terminals and
/// pages) and followed by the service's name.
pub(super) fn at(c: &ServiceConfig, v: &dyn std::fmt::Display) -> String {
    format!("{v} (service `{}`)", c.name.escape_debug())
}

/// `c`'s calls resolved: the callee's index by `node` (a name's first replica), the timeout
/// (the users' when the call has none), the link, in range.
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the key and the service.
pub(super) fn calls(
    c: &ServiceConfig,
    sc: &Scenario,
    node: impl Fn(&str) -> Option<usize>,
) -> Result<Vec<Edge>, ScenarioError> {
    let at = |v: &dyn std::fmt::Display| at(c, v);
    let mut calls = Vec::with_capacity(c.calls.len());
    for call in &c.calls {
        let to = node(&call.to).ok_or_else(|| {
            bad("service.call.to", at(&call.to.escape_debug()), "the name of a [[service]] in this scenario")
        })?;
        let timeout = call.timeout.unwrap_or(sc.clients.timeout);
        if timeout.is_zero() {
            return Err(bad("service.call.timeout", at(&"0s"), "a duration > 0"));
        }
        if !(0.0..=1.0).contains(&call.probability) {
            return Err(bad("service.call.probability", at(&call.probability), "a probability in [0, 1]"));
        }
        if let Err(ScenarioError::Invalid { value, expected, .. }) = crate::check_policy(&call.policy) {
            return Err(bad("service.call.policy", at(&value), expected));
        }
        let link = Link::new(call.latency.as_ref(), call.loss).map_err(|(field, expected)| {
            let v = if field == "latency" { at(&fmt_opt(&call.latency)) } else { at(&call.loss) };
            bad(if field == "latency" { "service.call.latency" } else { "service.call.loss" }, v, expected)
        })?;
        calls.push(Edge {
            to,
            policy: call.policy.clone(),
            timeout: nanos(timeout),
            link,
            retry_on: call.retry_on,
            retry_after: call.retry_after,
            budget_scope: call.budget_scope,
            probability: call.probability,
        });
    }
    Ok(calls)
}

/// Service `c` resolved, with its `calls` and `group` (its first replica's index).
///
/// # Errors
/// [`ScenarioError::Invalid`] for a defence key out of range (`rate_limit`, `discipline`,
/// `codel`, `concurrency_limit`), naming the service.
pub(super) fn node(c: &ServiceConfig, calls: Vec<Edge>, group: usize) -> Result<Node, ScenarioError> {
    let at = |v: &dyn std::fmt::Display| at(c, v);
    Ok(Node {
        name: c.name.clone(),
        workers: c.workers,
        queue: c.queue,
        refusal_cost: nanos(c.refusal_cost),
        time: c.service_time,
        deadline_propagation: c.deadline_propagation,
        calls,
        error_rate: c.error_rate,
        drop_when_full: c.on_full == super::super::OnFull::Drop,
        rate_limit: super::super::defense::check_rate_limit(c).map_err(|(f, v, e)| bad(f, at(&v), e))?,
        discipline: super::super::defense::check_discipline(c).map_err(|(f, v, e)| bad(f, at(&v), e))?,
        codel: super::super::defense::check_codel(c).map_err(|(f, v, e)| bad(f, at(&v), e))?,
        concurrency_limit: super::super::defense::check_limit(c).map_err(|(f, v, e)| bad(f, at(&v), e))?,
        group,
        replicas: c.replicas,
        balancer: c.balancer,
    })
}
