//! A scenario's services resolved to indices and checked: names unique, calls to known
//! services, no cycles, ranges.

use super::config::{ServiceConfig, ServiceTime, MAX_ARRIVALS, MAX_SERVICES};
use super::network::Link;

mod check;
use crate::queue::Nanos;
use crate::retrier::RetryOn;
use crate::scenario::{Scenario, ScenarioError};
use rebound_retry::Spec;

/// Names a service may not take: `users` labels the users' own figures.
pub const RESERVED_NAMES: [&str; 1] = ["users"];

/// One service, resolved.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its name.
    pub name: String,
    /// Workers (unused by `s5`).
    pub workers: u32,
    /// Queue places (unused by `s5`).
    pub queue: u32,
    /// Processor time per shed arrival, in nanoseconds (0: free).
    pub refusal_cost: Nanos,
    /// Its service time.
    pub time: ServiceTime,
    /// Whether a dequeued request whose caller gave up is dropped.
    pub deadline_propagation: bool,
    /// Its calls, in order.
    pub calls: Vec<Edge>,
    /// Probability that a request fails after its service time (`error_rate`).
    pub error_rate: f64,
    /// Whether an arrival past a full queue is dropped (`on_full = "drop"`) rather than
    /// refused.
    pub drop_when_full: bool,
    /// `rate_limit` (tokens per second) and its burst.
    pub rate_limit: Option<(f64, u32)>,
    /// Which waiting request a free worker takes.
    pub discipline: super::defense::Discipline,
    /// CoDel on the queue.
    pub codel: Option<super::defense::CodelConfig>,
    /// The concurrency limit.
    pub concurrency_limit: Option<super::defense::ConcurrencyLimit>,
    /// The index of its group's first replica (its own index without replicas).
    pub group: usize,
    /// Replicas in its group (1: none).
    pub replicas: u32,
    /// How an attempt picks one of them.
    pub balancer: super::defense::Balancer,
}

/// One call, resolved.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The callee's index.
    pub to: usize,
    /// The caller's policy.
    pub policy: Spec,
    /// Per-attempt timeout, in nanoseconds.
    pub timeout: Nanos,
    /// The network between caller and callee.
    pub link: Link,
    /// Which failures the caller's policy may retry.
    pub retry_on: RetryOn,
    /// Whether the caller's policy honours the callee's `Retry-After`.
    pub retry_after: crate::retrier::RetryAfter,
    /// Whether each of the caller's workers has a budget of its own.
    pub budget_scope: crate::retrier::CallBudgetScope,
    /// The probability that a request makes the call, in [0, 1].
    pub probability: f64,
}

/// The services of a scenario, resolved.
#[derive(Debug, Clone)]
pub struct Topology {
    /// The services, in scenario order.
    pub nodes: Vec<Node>,
    /// The service users call.
    pub entry: usize,
    /// The service the outage hits (its first replica, or `outage.replica`).
    pub outage_target: usize,
    /// How many nodes from `outage_target` on it hits: the service's replicas, or 1.
    pub outage_nodes: usize,
    /// The network between the users and the entry service.
    pub user_link: Link,
}

fn bad(field: &'static str, value: String, expected: &'static str) -> ScenarioError {
    ScenarioError::Invalid { field, value, expected }
}

fn fmt_opt(t: &Option<ServiceTime>) -> String {
    t.map_or_else(|| "none".to_string(), |t| t.to_string())
}

impl Topology {
    /// Resolves and checks `sc`'s services (one S5 `server` when it has none).
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`] naming the key (`service.name`, `service.workers`,
    /// `service.queue`, `service.call.to`, `clients.calls`, `outage.service`, ...) and the
    /// service.
    pub fn new(sc: &Scenario) -> Result<Topology, ScenarioError> {
        let default = [ServiceConfig { service_time: ServiceTime::S5, ..ServiceConfig::default() }];
        let configs: &[ServiceConfig] = if sc.services.is_empty() { &default } else { &sc.services };
        if configs.len() > MAX_SERVICES {
            return Err(bad("service", configs.len().to_string(), "at most 64 services"));
        }
        let index = |name: &str| configs.iter().position(|c| c.name == name);
        let first = super::defense::first_replicas(configs).map_err(|(f, v, e)| bad(f, v, e))?;
        let node = |name: &str| index(name).map(|i| first[i]);
        let mut nodes = Vec::with_capacity(configs.len());
        for (i, c) in configs.iter().enumerate() {
            check::service(c, index(&c.name) == Some(i))?;
            let calls = check::calls(c, sc, node)?;
            let n = check::node(c, calls, first[i])?;
            nodes.extend(std::iter::repeat_n(n, c.replicas as usize));
        }
        if let Some(r) = sc.clients.rate {
            let arrivals = crate::scenario::load::total_arrivals(sc);
            if arrivals > MAX_ARRIVALS {
                let v = format!("{}/s for {}s ({arrivals} arrivals)", r.per_s, sc.duration.as_secs());
                return Err(bad(
                    "clients.rate",
                    v,
                    "at most 1e9 arrivals in the run (rate x duration, phases and load spike included)",
                ));
            }
        }
        let entry = match &sc.clients.calls {
            None => 0,
            Some(n) => node(n).ok_or_else(|| {
                bad(
                    "clients.calls",
                    n.escape_debug().to_string(),
                    "the name of a [[service]] in this scenario",
                )
            })?,
        };
        let outage_group = match &sc.outage.service {
            None => entry,
            Some(n) => node(n).ok_or_else(|| {
                bad(
                    "outage.service",
                    n.escape_debug().to_string(),
                    "the name of a [[service]] in this scenario",
                )
            })?,
        };
        let (outage_target, outage_nodes) =
            super::defense::outage_replicas(&nodes[outage_group], outage_group, sc.outage.replica)
                .map_err(|(f, v, e)| bad(f, v, e))?;
        let user_link =
            Link::new(sc.clients.latency.as_ref(), sc.clients.loss).map_err(|(field, expected)| {
                if field == "latency" {
                    bad("clients.latency", fmt_opt(&sc.clients.latency), expected)
                } else {
                    bad("clients.loss", sc.clients.loss.to_string(), expected)
                }
            })?;
        let t = Topology { nodes, entry, outage_target, outage_nodes, user_link };
        t.check_acyclic()?;
        Ok(t)
    }

    /// An error if some service's calls lead back to it.
    fn check_acyclic(&self) -> Result<(), ScenarioError> {
        // 0 = unvisited, 1 = on the path, 2 = done.
        fn visit(t: &Topology, i: usize, mark: &mut [u8]) -> Result<(), ScenarioError> {
            match mark[i] {
                2 => return Ok(()),
                1 => {
                    return Err(bad(
                        "service.call.to",
                        format!("{} (a cycle)", t.nodes[i].name),
                        "calls that never lead back to the caller",
                    ))
                }
                _ => {}
            }
            mark[i] = 1;
            for e in &t.nodes[i].calls {
                visit(t, e.to, mark)?;
            }
            mark[i] = 2;
            Ok(())
        }
        let mut mark = vec![0u8; self.nodes.len()];
        (0..self.nodes.len()).try_for_each(|i| visit(self, i, &mut mark))
    }
}

#[cfg(test)]
mod tests {
    /// Issue 34 §19: a service named `users` printed lines indistinguishable from the users'.
    #[test]
    fn the_reserved_name_users_is_refused() {
        let e = crate::Scenario::from_toml("[[service]]\nname = \"users\"\n").unwrap_err().to_string();
        assert!(e.contains("service.name") && e.contains("reserved"), "{e}");
        crate::Scenario::from_toml("[[service]]\nname = \"users-api\"\n").unwrap();
    }
}
