//! # rebound-sim
//!
//! A deterministic discrete-event simulator of clients retrying against an overloaded server:
//! the storm lab behind `rebound storm` and `rebound sweep`. It drives the `rebound` library's
//! own policies (never copies of them), so what it shows is what the library does.
//!
//! Why: a retry policy is judged by what many clients running it do to a server, and that is
//! hard to see from one client. Fixed-interval retries keep a failed server overloaded after
//! the trigger is gone (a metastable failure); backoff with jitter lets the load fall until the
//! server copes. The simulator reproduces both, in seconds, with numbers.
//!
//! ## The storm model ([`storm`], S5)
//! | part | parameter | unit | default |
//! |---|---|---|---|
//! | clients | `clients.count` | clients | 1000 |
//! | | `clients.think`: mean of the exponential think time | duration | 10 s (≈ 100 req/s) |
//! | | `clients.timeout`: per attempt | duration | 2 s |
//! | server | `server.min_delay`, `concurrency_limit`, `factor`, `k` | [`DelayModel`] | 100 ms, 30, 1.05, 15 |
//! | | `server.tick`: how often a request re-checks its delay | duration | 50 ms |
//! | | `server.backlog`: accept queue while paused (see below) | connections | 511 |
//! | | `server.backlog_full`: `drop` (client times out) or `refuse` | | `drop` |
//! | outage | `outage.kind`: `pause`, `hard-down`, `capacity-cut`, `none` | | `pause` |
//! | | `outage.start`, `outage.end` | duration | 15 s, 45 s |
//! | | `outage.slowdown` (capacity cut) | factor | 10 |
//! | run | `duration`, `status_interval`, `seed` | | 120 s, 5 s, 1 |
//! | verdict | `verdict.baseline`, `verdict.window`, `verdict.threshold` ([`verdict`]) | duration, duration, share | 10 s, 5 s, 0.9 |
//!
//! ### Why the backlog defaults to 511, not 1024
//! At resume the whole backlog is admitted at once, and every one of those requests starts its
//! clock together. If the backlog alone pushes the delay `d(c)` above the clients' timeout (with
//! S5's server, `d` reaches 2 s at `c ≈ 950`), nothing admitted after resume can be answered in
//! time and the server stays down *whatever the clients' policy*: with `server.backlog = 1024`
//! (`d(1034) ≈ 2.6 s`) even clients that never retry leave it stuck. 511 is the listen backlog
//! nginx and Redis ask for on Linux; with it the run shows S5's result — fixed-interval retries
//! never recover, backoff does. `rebound storm --scenario` with a larger backlog shows the other
//! regime.
//!
//! See [`server`] for the server's exact behaviour, [`verdict`] for the verdicts and
//! [`replicate`] for replications (`--runs`) and their intervals.
//!
//! ## The service graph ([`graph`])
//! A scenario may instead list `[[service]]`s — workers, a queue (past which arrivals are shed),
//! a service-time distribution, deadline propagation — and the `[[service.call]]`s each makes
//! while serving a request, each with its own retry policy and timeout; users call one of them,
//! in a closed loop (`count`, `think`) or an open loop (`rate`). The outage hits one service.
//! Every run, S5's one server included, is this engine's: S5's `[server]` is a graph of one
//! `s5` service. Per service it reports attempts (first attempts and retries), goodput, errors,
//! timeouts, shedding, queue, requests in flight, latency, and *amplification*: attempts that
//! reached it per user request (see [`graph`] for the exact model and units). Policies may
//! hedge (`hedge=DELAY:MAX`, `hedge=pQ:MAX`): copies of a slow attempt, gRPC A6's rules, counted
//! as `hedges` and in the attempts.
//!
//! ## The capacity model ([`capacity`], S2)
//! One processor, a bounded queue, a processor-time cost for every refusal, and clients in a
//! closed loop: the model of Thain's figure, where fixed-interval retries starve the server. It
//! is a configuration of the service graph: one service with one worker, a queue of 50 and a
//! `refusal_cost`, called by users with no think time and a `give_up_pause`.
//!
//! ```
//! use rebound_sim::{storm, Scenario};
//! let mut scenario = Scenario::default();
//! scenario.clients.count = 100;
//! scenario.duration = std::time::Duration::from_secs(20);
//! scenario.outage.kind = rebound_sim::OutageKind::None;
//! let report = storm::run(&scenario, &"exponential:base=100ms,jitter=full".parse()?);
//! assert!(report.ok > 0 && report.recovered);
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations)]

pub mod advise;
pub mod bench;
mod bounds;
pub mod capacity;
pub mod chunked;
mod client_rng;
pub mod contend;
pub mod cost;
pub mod delay;
pub mod estimate;
pub mod graph;
pub mod ladder;
pub mod map;
pub mod paged;
mod prefetch;
pub mod queue;
pub mod range;
pub mod replicate;
pub mod report;
pub mod retrier;
pub mod scenario;
pub mod scheduler;
#[cfg(feature = "schema")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema")))]
pub mod schema;
pub mod serde_duration;
pub mod server;
pub mod shard;
pub mod stop;
pub mod storm;
pub mod tune;
pub mod verdict;

pub use bounds::{check_policy, MAX_OFFERED_RATE};
pub use delay::DelayModel;
pub use scenario::{
    default_policies, BacklogFull, Clients, Outage, OutageKind, Scenario, ScenarioError, Server,
};
pub use stop::{RunError, Stop};
pub use storm::StormReport;
pub use verdict::{Verdict, VerdictConfig};
