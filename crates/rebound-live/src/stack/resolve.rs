//! From `--scenario`, `--service`, `--replica` and `--peer`s to a service ready to serve:
//! every key checked once, at start, and a key that cannot run live refused naming it.

use super::calls::{Call, Guards};
use crate::error::LiveError;
use rebound_sim::graph::{Node, Sampler, ServiceTime, Topology};
use rebound_sim::Scenario;
use std::net::SocketAddr;

/// One `--peer NAME=URL`: a replica of a callee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// The callee's `[[service]]` name.
    pub name: String,
    /// Its base URL (`http://127.0.0.1:PORT`).
    pub url: String,
}

impl std::str::FromStr for Peer {
    type Err = String;

    fn from_str(s: &str) -> Result<Peer, String> {
        let bad =
            || format!("invalid peer `{s}`: must be NAME=http://HOST:PORT, e.g. db=http://127.0.0.1:8071");
        let (name, url) = s.split_once('=').ok_or_else(bad)?;
        if name.is_empty() || !url.starts_with("http://") || url.len() <= "http://".len() {
            return Err(bad());
        }
        Ok(Peer { name: name.to_string(), url: url.to_string() })
    }
}

/// What `rebound serve --scenario` was asked to serve.
#[derive(Debug, Clone)]
pub struct StackConfig {
    /// The scenario (validated).
    pub scenario: Scenario,
    /// The `[[service]]` to serve.
    pub service: String,
    /// Which replica, in [0, replicas).
    pub replica: u32,
    /// The listen address (loopback).
    pub listen: SocketAddr,
    /// The callees' replicas, in replica order per callee.
    pub peers: Vec<Peer>,
    /// The run's seed.
    pub seed: u64,
    /// Where its spans go (`--traces`), if recorded: a SERVER span per request, a CLIENT span
    /// per copy sent ([`crate::traces`]).
    pub traces: Option<crate::traces::Recorder>,
}

fn invalid(field: &'static str, value: String, expected: &'static str) -> LiveError {
    LiveError::Invalid { field, value, expected }
}

/// The service's node, its index among the scenario's services, and its sampler.
pub(super) fn node(c: &StackConfig) -> Result<(Node, usize, Sampler), LiveError> {
    let topo =
        Topology::new(&c.scenario).map_err(|e| invalid("--scenario", e.to_string(), "a valid scenario"))?;
    let services = &c.scenario.services;
    let Some(index) = services.iter().position(|s| s.name == c.service) else {
        let names: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
        return Err(invalid(
            "--service",
            format!("`{}` (the scenario has: {})", c.service.escape_debug(), names.join(", ")),
            "the name of a [[service]] in the scenario",
        ));
    };
    let first = topo.nodes.iter().position(|n| n.name == c.service).expect("every service has a node");
    let n = topo.nodes[first].clone();
    if c.replica >= n.replicas {
        return Err(invalid(
            "--replica",
            format!("{} (service `{}`)", c.replica, n.name),
            "an integer in [0, replicas)",
        ));
    }
    let sampler = live_node(&n)?;
    debug_assert!(!matches!(n.time, ServiceTime::S5));
    Ok((n, index, sampler))
}

/// Refuses what no live service of `scenario` can run — an `s5` service time, a
/// `refusal_cost`, a call whose `budget_scope` is `worker`, a call policy that is `responsive`
/// or has a `redis:` budget — naming the key, before any process starts (`experiment live`
/// checks it at parse time; each process checks its own service again).
///
/// # Errors
/// [`LiveError::Invalid`] naming the first such key.
pub fn refusals(scenario: &Scenario) -> Result<(), LiveError> {
    let topo =
        Topology::new(scenario).map_err(|e| invalid("--scenario", e.to_string(), "a valid scenario"))?;
    for n in &topo.nodes {
        live_node(n)?;
        for edge in &n.calls {
            live_call(n, edge, &topo.nodes[edge.to])?;
            guards(&edge.policy, 0, &n.name)?;
        }
    }
    Ok(())
}

/// The sampler of a service a live process can serve.
fn live_node(n: &Node) -> Result<Sampler, LiveError> {
    let Some(sampler) = n.time.sampler() else {
        return Err(invalid(
            "service.service_time",
            format!("s5 (service `{}`)", n.name),
            "a live service's form: constant, exponential, lognormal or linear (S5's server is `rebound serve` without --scenario)",
        ));
    };
    if n.refusal_cost != 0 {
        return Err(invalid(
            "service.refusal_cost",
            format!("{}ns (service `{}`)", n.refusal_cost, n.name),
            "0s in a live service (a shed costs what it costs a real process)",
        ));
    }
    Ok(sampler)
}

/// Refuses a call a live service cannot make as the simulator does.
fn live_call(n: &Node, edge: &rebound_sim::graph::Edge, callee: &Node) -> Result<(), LiveError> {
    if edge.budget_scope.per_client() {
        return Err(invalid(
            "service.call.budget_scope",
            format!("worker (service `{}` calling `{}`)", n.name, callee.name),
            "service live: a live service's requests share one budget and retry breaker per call (it has no workers to give one each)",
        ));
    }
    Ok(())
}

/// The service's calls, each with its callee's peers and its policy's guards.
pub(super) fn calls(
    c: &StackConfig,
    n: &Node,
    seed: u64,
    client: &reqwest::Client,
) -> Result<Vec<Call>, LiveError> {
    let topo =
        Topology::new(&c.scenario).map_err(|e| invalid("--scenario", e.to_string(), "a valid scenario"))?;
    let callees: Vec<&str> = n.calls.iter().map(|e| topo.nodes[e.to].name.as_str()).collect();
    if let Some(p) = c.peers.iter().find(|p| !callees.contains(&p.name.as_str())) {
        return Err(invalid(
            "--peer",
            format!("{}={} (service `{}` calls: {})", p.name, p.url, n.name, callees.join(", ")),
            "a callee of --service",
        ));
    }
    let mut calls = Vec::with_capacity(n.calls.len());
    for (i, edge) in n.calls.iter().enumerate() {
        let callee = &topo.nodes[edge.to];
        let peers: Vec<String> =
            c.peers.iter().filter(|p| p.name == callee.name).map(|p| p.url.clone()).collect();
        if peers.len() != callee.replicas as usize {
            return Err(invalid(
                "--peer",
                format!("{} given for `{}` ({} replicas)", peers.len(), callee.name, callee.replicas),
                "one --peer NAME=URL per replica of each callee",
            ));
        }
        live_call(n, edge, callee)?;
        let guards = guards(&edge.policy, seed.wrapping_add(i as u64), &n.name)?;
        let call_seed = seed.wrapping_mul(31).wrapping_add(i as u64);
        calls.push(
            Call::new(callee.name.clone(), peers, callee.balancer, guards, edge, call_seed, client.clone())
                .traced(c.traces.clone()),
        );
    }
    Ok(calls)
}

fn guards(spec: &rebound_retry::Spec, seed: u64, service: &str) -> Result<Guards, LiveError> {
    let refuse = |why: String| {
        invalid(
            "service.call.policy",
            format!("{spec} (service `{service}`): {why}"),
            "a policy a live call can run: constant, linear or exponential, with a local budget",
        )
    };
    let policy = *spec.policy().ok_or_else(|| refuse("a responsive policy".into()))?;
    Ok(Guards {
        policy,
        budget: spec.budget().map(|b| b.build()).transpose().map_err(|e| refuse(e.to_string()))?,
        throttle: spec
            .throttle()
            .map(|t| t.build_seeded(seed))
            .transpose()
            .map_err(|e| refuse(e.to_string()))?,
        breaker: spec
            .breaker()
            .map(|b| b.build().map(std::sync::Arc::new))
            .transpose()
            .map_err(|e| refuse(e.to_string()))?,
        hedge: spec.hedge().map(|h| h.policy()).transpose().map_err(|e| refuse(e.to_string()))?,
        retry_breaker: spec
            .retry_breaker()
            .map(|r| r.build().map(std::sync::Arc::new))
            .transpose()
            .map_err(|e| refuse(e.to_string()))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_parse() {
        assert_eq!(
            "db=http://127.0.0.1:9".parse::<Peer>(),
            Ok(Peer { name: "db".into(), url: "http://127.0.0.1:9".into() })
        );
        for bad in ["db", "=http://x", "db=ftp://x", "db=http://"] {
            assert!(bad.parse::<Peer>().unwrap_err().contains("NAME=http"), "{bad}");
        }
    }
}
