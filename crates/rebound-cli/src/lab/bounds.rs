//! What the lab accepts in one run: the fields' bounds ([`BOUNDS`]) and the simulator's cost
//! model at [`rebound_sim::cost::LAB`], checked when a run is submitted ([`check_bounds`]).

use rebound_sim::Scenario;

/// What the lab accepts in one run. Past a bound, a run is refused with a message naming the
/// field and the bound (the CLI's `rebound storm` has the wider bounds of the simulator).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Bounds {
    /// Most clients (`clients.count`).
    pub max_clients: u32,
    /// Longest simulated run (`duration`), in seconds.
    pub max_duration_s: u64,
    /// Most client-seconds (`clients.count` × `duration` in seconds): the work of one policy.
    pub max_client_seconds: u64,
    /// Most user requests an open loop may offer (`clients.rate` × `duration`).
    pub max_open_loop_requests: u64,
    /// Most policies in one run.
    pub max_policies: usize,
    /// Most replications of each policy (`runs`).
    pub max_runs: u32,
    /// Wall-clock time a run may take, in seconds; past it the run fails.
    pub max_wall_s: u64,
    /// Runs going at once, over every tab; past it a new run is refused (HTTP 429).
    pub max_running: usize,
    /// Seconds a run goes on with nobody watching (no event stream open, no poll of its
    /// result) before it is cancelled.
    pub max_unwatched_s: u64,
    /// The simulator's cost bounds for the lab (events, calls per request, memory, offered
    /// rate): see `rebound_sim::cost`.
    pub cost: rebound_sim::cost::Limits,
}

/// The lab's bounds: 100,000 clients, 600 s, 12 M client-seconds (the benchmark scenario's
/// 100,000 clients × 120 s), 1.2 M open-loop requests (what those clients send at S5's 10 s
/// think time), 12 policies, 100 replications, 60 s of wall-clock time, 4 runs at once, 15 s
/// unwatched, and the simulator's [`LAB`](rebound_sim::cost::LAB) cost bounds.
pub const BOUNDS: Bounds = Bounds {
    max_clients: 100_000,
    max_duration_s: 600,
    max_client_seconds: 12_000_000,
    max_open_loop_requests: 1_200_000,
    max_policies: 12,
    max_runs: 100,
    max_wall_s: 60,
    max_running: 4,
    max_unwatched_s: 15,
    cost: rebound_sim::cost::LAB,
};

/// Checks a scenario and its policies against [`BOUNDS`].
///
/// # Errors
/// A message naming the field, its value and the bound.
pub fn check_bounds(s: &Scenario) -> Result<(), String> {
    let b = BOUNDS;
    if s.clients.count > b.max_clients {
        return Err(format!(
            "`clients.count` = {} is past the lab's bound: at most {}",
            s.clients.count, b.max_clients
        ));
    }
    let secs = s.duration.as_secs_f64().ceil() as u64;
    if secs > b.max_duration_s {
        return Err(format!("`duration` = {secs}s is past the lab's bound: at most {}s", b.max_duration_s));
    }
    let work = u64::from(s.clients.count).saturating_mul(secs);
    if work > b.max_client_seconds {
        return Err(format!(
            "`clients.count` × `duration` = {work} client-seconds is past the lab's bound: at most {}",
            b.max_client_seconds
        ));
    }
    if let Some(rate) = s.clients.rate {
        let requests = rate.per_s * secs as f64;
        if requests > b.max_open_loop_requests as f64 {
            return Err(format!(
                "`clients.rate` × `duration` = {requests:.0} requests is past the lab's bound: at most {}",
                b.max_open_loop_requests
            ));
        }
    }
    for p in &s.policies {
        rebound_sim::check_policy(p).map_err(|e| e.to_string())?;
    }
    if s.policies.len() > b.max_policies {
        return Err(format!(
            "{} policies is past the lab's bound: at most {}",
            s.policies.len(),
            b.max_policies
        ));
    }
    rebound_sim::cost::check(s, &b.cost).map(|_| ()).map_err(|e| format!("{e}: the lab's bound"))
}
