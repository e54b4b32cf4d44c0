//! Keys that are valid in themselves but would have no effect where they stand are refused,
//! rather than echoed back in the report as if they were in effect.
//!
//! A key counts as set when its value differs from the default: a scenario printed whole
//! (`toml::to_string`, the lab's built-in scenarios) carries every default, and those are not a
//! user's intent. The rules:
//! - `clients.count` and `clients.think` with `clients.rate`: an open loop's users arrive at
//!   the rate, whoever they are and whatever they think;
//! - `[server]` without an `s5` service in a service graph: it configures S5's server, which a
//!   graph has only as `service_time = "s5"`;
//! - `workers` and `queue` on an `s5` service: S5's server has no worker limit and its queue is
//!   `[server] backlog`;
//! - `outage.slowdown` with any `outage.kind` but `capacity-cut`: only a capacity cut slows the
//!   service down;
//! - `outage.factor` with any `outage.kind` but `load-spike`, and `outage.error_rate` with any
//!   but `errors`;
//! - `outage.service` and `outage.replica` with `outage.kind = "load-spike"`: a load spike hits
//!   the users, not a service;
//! - a `balancer` other than `round-robin` on a service without `replicas` (one copy: there is
//!   nothing to balance).

use super::{invalid, Clients, OutageKind, Scenario, ScenarioError, Server};
use crate::graph::{Balancer, ServiceConfig, ServiceTime};

/// Refuses the first key set without effect, naming it and why.
///
/// # Errors
/// [`ScenarioError::Invalid`] naming the key.
pub(super) fn check(s: &Scenario) -> Result<(), ScenarioError> {
    let clients = Clients::default();
    if s.clients.rate.is_some() {
        if s.clients.count != clients.count {
            return Err(invalid("clients.count", s.clients.count, NO_COUNT_WITH_RATE));
        }
        if s.clients.think != clients.think {
            return Err(invalid("clients.think", super::fmt(s.clients.think), NO_THINK_WITH_RATE));
        }
    }
    let s5 = |c: &ServiceConfig| matches!(c.service_time, ServiceTime::S5);
    if !s.services.is_empty() && !s.services.iter().any(s5) {
        if let Some((key, value)) = changed_server_key(&s.server) {
            return Err(invalid(key, value, NO_SERVER_WITHOUT_S5));
        }
    }
    let service = ServiceConfig::default();
    for c in s.services.iter().filter(|c| s5(c)) {
        if c.workers != service.workers {
            return Err(invalid(
                "service.workers",
                format!("{} (service `{}`)", c.workers, c.name),
                NO_WORKERS_ON_S5,
            ));
        }
        if c.queue != service.queue {
            return Err(invalid(
                "service.queue",
                format!("{} (service `{}`)", c.queue, c.name),
                NO_QUEUE_ON_S5,
            ));
        }
    }
    for c in &s.services {
        if c.replicas == 1 && !c.balancer.is_round_robin() {
            return Err(invalid(
                "service.balancer",
                format!("{} (service `{}`)", balancer_name(c.balancer), c.name),
                NO_BALANCER_WITHOUT_REPLICAS,
            ));
        }
    }
    check_outage(&s.outage)
}

/// The outage's keys that its kind does not use.
fn check_outage(o: &super::Outage) -> Result<(), ScenarioError> {
    let d = super::Outage::default();
    if o.kind != OutageKind::CapacityCut && o.slowdown != d.slowdown {
        return Err(invalid("outage.slowdown", o.slowdown, NO_SLOWDOWN));
    }
    if o.kind != OutageKind::LoadSpike && o.factor != d.factor {
        return Err(invalid("outage.factor", o.factor, NO_FACTOR));
    }
    if o.kind != OutageKind::Errors && o.error_rate != d.error_rate {
        return Err(invalid("outage.error_rate", o.error_rate, NO_ERROR_RATE));
    }
    if o.kind == OutageKind::LoadSpike {
        if let Some(service) = &o.service {
            return Err(invalid("outage.service", service, NO_TARGET_FOR_SPIKE));
        }
        if let Some(replica) = o.replica {
            return Err(invalid("outage.replica", replica, NO_TARGET_FOR_SPIKE));
        }
    }
    Ok(())
}

const NO_COUNT_WITH_RATE: &str =
    "left out with `clients.rate`: open-loop users arrive at the rate, however many there are (use `[[clients.phase]]` rates to vary the load)";
const NO_THINK_WITH_RATE: &str =
    "left out with `clients.rate`: open-loop users do not think between requests, they arrive at the rate";
const NO_SERVER_WITHOUT_S5: &str =
    "left out: `[server]` configures S5's server, and this service graph has no `service_time = \"s5\"` service";
const NO_WORKERS_ON_S5: &str =
    "left out on an `s5` service: S5's server has no worker limit (its delay grows with concurrency)";
const NO_QUEUE_ON_S5: &str = "left out on an `s5` service: its queue is `[server] backlog`";
const NO_SLOWDOWN: &str =
    "left out unless `outage.kind = \"capacity-cut\"`: only a capacity cut slows the service";
const NO_FACTOR: &str =
    "left out unless `outage.kind = \"load-spike\"`: only a load spike multiplies the offered load";
const NO_ERROR_RATE: &str =
    "left out unless `outage.kind = \"errors\"`: only an error burst fails attempts at a rate";
const NO_TARGET_FOR_SPIKE: &str =
    "left out with `outage.kind = \"load-spike\"`: a load spike hits the users, not a service";
const NO_BALANCER_WITHOUT_REPLICAS: &str =
    "left out on a service without `replicas` (> 1): one copy leaves nothing to balance";

/// The first `[server]` key whose value is not the default, and its value.
fn changed_server_key(server: &Server) -> Option<(&'static str, String)> {
    let d = Server::default();
    let f = super::fmt;
    [
        ("server.min_delay", server.min_delay != d.min_delay, f(server.min_delay)),
        (
            "server.concurrency_limit",
            server.concurrency_limit != d.concurrency_limit,
            server.concurrency_limit.to_string(),
        ),
        ("server.factor", server.factor != d.factor, server.factor.to_string()),
        ("server.k", server.k != d.k, server.k.to_string()),
        ("server.tick", server.tick != d.tick, f(server.tick)),
        ("server.backlog", server.backlog != d.backlog, server.backlog.to_string()),
        (
            "server.backlog_full",
            server.backlog_full != d.backlog_full,
            format!("{:?}", server.backlog_full).to_lowercase(),
        ),
    ]
    .into_iter()
    .find_map(|(key, changed, value)| changed.then_some((key, value)))
}

/// A balancer as the scenario writes it.
fn balancer_name(b: Balancer) -> &'static str {
    match b {
        Balancer::RoundRobin => "round-robin",
        Balancer::Random => "random",
        Balancer::LeastOutstanding => "least-outstanding",
        Balancer::PowerOfTwo => "power-of-two",
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    /// Issue 34 §16: keys that do nothing where they stand were accepted and echoed.
    #[test]
    fn keys_without_effect_are_refused_naming_them() {
        let graph = "[[service]]\nname = \"api\"\n";
        for (toml, key) in [
            (format!("{graph}balancer = \"power-of-two\"\n"), "service.balancer"),
            ("[outage]\nkind = \"pause\"\nfactor = 3.0\n".to_string(), "outage.factor"),
            ("[outage]\nkind = \"hard-down\"\nerror_rate = 0.5\n".to_string(), "outage.error_rate"),
            (format!("[outage]\nkind = \"load-spike\"\nservice = \"api\"\n{graph}"), "outage.service"),
            (
                format!("[outage]\nkind = \"load-spike\"\nreplica = 0\n{graph}replicas = 2\n"),
                "outage.replica",
            ),
        ] {
            let e = Scenario::from_toml(&toml).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("left out"), "{toml}: {e}");
        }
        // Where they act, and explicit defaults anywhere, they stay accepted.
        for ok in [
            format!("{graph}replicas = 2\nbalancer = \"power-of-two\"\n"),
            format!("{graph}balancer = \"round-robin\"\n"),
            "[outage]\nkind = \"load-spike\"\nfactor = 3.0\n".to_string(),
            "[outage]\nkind = \"errors\"\nerror_rate = 0.5\n".to_string(),
            "[outage]\nkind = \"pause\"\nfactor = 2.0\nerror_rate = 1.0\n".to_string(),
        ] {
            Scenario::from_toml(&ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }
}
