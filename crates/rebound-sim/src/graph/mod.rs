//! The service graph: users calling a stack of services that call each other, with retries at
//! every hop. The one engine behind `rebound storm`, `map`, `advise` and `sweep` (S2's capacity
//! server is one service of this graph: see [`crate::capacity`]).
//!
//! ## The model
//! | part | key | unit | default |
//! |---|---|---|---|
//! | users, closed loop (S5) | `clients.count`, `clients.think` (mean, exponential; `0s`: none, S2) | users, duration | 1000, 10 s |
//! | | `clients.give_up_pause`: wait after the policy gave up, before thinking (> 0 when `think` is 0) | duration | 0 s |
//! | users, open loop | `clients.rate`: Poisson arrivals, e.g. `"500/s"` | requests/s | — |
//! | | `clients.timeout` (per attempt), `clients.calls` (entry service) | duration, name | 2 s, first service |
//! | service | `workers`: requests served at once | requests | 64 |
//! | | `queue`: requests waiting for a worker; past it an arrival is *shed* | requests | 256 |
//! | | `refusal_cost`: processor time per shed arrival, in [0, 1 h] (S2's 2.5 ms) | duration | 0 |
//! | | `service_time`: `constant:D`, `exponential:MEAN`, `lognormal:p50=..,p99=..`, `s5` | duration | `exponential:10ms` |
//! | | `deadline_propagation`: drop a dequeued request whose caller gave up | bool | false |
//! | defenses (`defense/`) | `rate_limit` (`"100/s"`), `burst`: a token bucket answering 429 + `Retry-After` | requests/s, tokens | none, the rate's tokens per second |
//! | | `queue_discipline` (`fifo`, `lifo`, `adaptive-lifo`), `adaptive_lifo_threshold` | —, requests | fifo, half the queue |
//! | | `codel = { target, interval }`: CoDel at dequeue (RFC 8289) | durations | none (5 ms, 100 ms) |
//! | | `replicas`, `balancer` (`round-robin`, `random`, `least-outstanding`, `power-of-two`) | copies, — | 1, round-robin |
//! | call | `to`, `policy` (a Rebound spec, `budget=`/`throttle=`/`hedge=` included), `timeout` | name, spec, duration | —, `constant:max-retries=0` (no retries), users' timeout |
//! | | `arrivals` (open loop: `poisson` or `constant`), `[[clients.phase]]` (`start`, `end`, `rate` or `count`) | —, durations, requests/s or users | `poisson`, none |
//! | | `latency`, `loss`, `retry_on`: the users' link and what they retry (as on a call) | —, probability, — | none, 0, `all` |
//! | service | `error_rate`: a request fails after its service time | probability | 0 |
//! | | `on_full`: a shed arrival gets an `error` at once or is `drop`ped (its caller times out) | — | `error` |
//! | | `service_time = "linear:base=B,per_in_flight=P"`: B + P × requests in the service when a worker takes it | durations | — |
//! | call | `latency`: network delay each way (a service-time form); `loss`: an attempt or its answer lost; `retry_on`: `all`, `errors`, `timeouts` | —, probability, — | none, 0, `all` |
//! | | `retry_after` (`honour`, `ignore`; also under `[clients]`): what the policy does with a 429's `Retry-After` | — | honour |
//! | | `budget_scope` (`service`, `worker`; under `[clients]`: `shared`, `client`): one retry budget for all the callers, or one each (`retrier/scope.rs`) | — | `service`, `shared` |
//! | outage | `service`, `replica`, `kind` (`pause`, `hard-down`, `capacity-cut`, `load-spike`, `errors`, `none`), `start`, `end` | name, —, duration | entry, `pause`, 15 s, 45 s |
//! | | `factor` (load spike: the users' load × it), `error_rate` (errors: each attempt fails with it) | factor, probability | 2, 1 |
//!
//! A request arriving at a service takes a free worker, or waits in the queue, or — the queue
//! full — is shed: refused at once, an error to its caller. Shedding is free unless the service
//! has a `refusal_cost`: then each shed arrival preempts the request the service's first worker
//! is working on, whose own work ends `refusal_cost` later (S2's capacity server, where the one
//! processor refuses between jobs; with more workers, refusals all fall on the first, as on an
//! accept thread pinned to one core). Nothing is charged while the service is paused, nor when
//! the first worker is waiting for a downstream call. A worker spends the sampled service
//! time on the request (× `outage.slowdown` during a capacity cut), then makes its calls in order;
//! the worker stays busy while it waits for them. Each call is an attempt with its own timeout;
//! on an error or a timeout the calling service's policy for that call decides whether to retry
//! and after what wait. A call that fails for good (the policy gave up, or no retries) makes the
//! service answer its own caller with an error; its callers then apply their policies. A caller
//! that times out abandons the attempt, but the callee keeps working on it (it does not know)
//! unless it has `deadline_propagation`, which drops it when it leaves the queue. The network
//! adds no delay unless a link has a `latency` or a `loss` (see `network.rs`).
//!
//! The `s5` service time is S5's server ([`crate::server`]): no worker limit, a response time
//! that grows with the number of requests in it, per `[server]`; it makes no calls. A scenario
//! without `[[service]]` is one such service, named `server`: S5's experiment.
//!
//! Load: open-loop arrivals come at the rate of the current phase (× a load spike's `factor`
//! during it), drawn again when the rate changes (exact for Poisson arrivals, which are
//! memoryless); closed-loop users past the current count wait after their request until the count
//! grows again, then start with a think time (with exponential think times, the added users'
//! requests begin at once at their full rate).
//!
//! Outages: `hard-down` fails every request in the service (their callers see an error) and
//! refuses arrivals; `pause` freezes it (arrivals wait in the queue or are shed, and its timers —
//! work, retries, call timeouts, answers to its calls — fire at resume); `capacity-cut`
//! multiplies service times; `errors` fails each request at the target with `error_rate` after
//! its service time (without its calls); `load-spike` multiplies the users' load.
//!
//! ## Hedged requests
//! A policy with `hedge=DELAY:MAX` or `hedge=pQ:MAX` — the users' or a call's — hedges (gRPC A6's
//! hedging policy):
//! while an attempt is unanswered `DELAY` after its last copy went out, the caller sends
//! another copy to the same service, up to `MAX` copies in all, each first charged to the
//! policy's retry budget if it has one (A6: hedges are throttled like retries; once the budget
//! refuses one, the attempt sends no more). The copies share the attempt's one timeout. The
//! first OK answer of any copy answers the attempt and the caller abandons the others: their
//! answers are ignored, and the callee keeps working on them unless it propagates deadlines (as
//! after a timeout). An error answer fails only its copy: A6 then sends the next hedge at once,
//! and the attempt fails — its retry policy takes over — when no copy is left in flight. Every
//! failed copy is reported to the budget, as the library's `hedge_async` does. An adaptive
//! `hedge=pQ:MAX` waits the Q-th percentile of the latencies its policy's callers saw (the
//! users', or one call's workers'), in the library's own tracker of the last 1000, and does not
//! hedge until it holds 20 (tower's `Hedge`). The engine records each answer to a tracked
//! attempt, timed from the attempt's first copy (copies share their attempt's number, so it
//! does not tell which one answered; the library times each copy from its own start), and
//! recomputes the percentile every 16 answers ([`crate::retrier`]).
//!
//! ## What is counted
//! Per service, per simulated second: *attempts* arriving (first attempts of a call or user
//! request, retries, and *hedges*: the copies after the first of a hedged attempt), answered OK
//! (*goodput*), answered with an error, attempts its callers
//! timed out on, *shed* arrivals, requests dropped by deadline propagation (*expired*), and,
//! at the end of the second, the queue and the requests in the service (queued or in service).
//! Latency is from arrival to answer, answered requests only.
//!
//! *Amplification* of a service = attempts that reached it (shed and refused ones included,
//! hedges included: every copy is an attempt) divided by the user requests *started* in the run,
//! finished or not, so that a collapsed run shows its retries. With three retries at each of
//! three layers and a dead bottom, it is 4 × 4 × 4 = 64 at the bottom. (The edge's own
//! `amplification` in [`crate::StormReport`] is attempts per *success*; its
//! `attempts_per_request` is the edge's amplification in this sense.)

mod calls;
mod config;
pub(crate) use config::latency_option;
mod defense;
mod engine;
mod event;
mod events;
mod finish;
mod hedge;
mod job;
mod load;
mod network;
mod outage;
mod purge;
mod refuse;
mod s5;
mod serve;
mod service;
mod setup;
mod stats;
mod topology;
mod users;

pub(crate) use config::is_zero;
pub use config::{
    CallConfig, EmpiricalTable, OnFull, Quantiles, Rate, Sampler, ServiceConfig, ServiceTime, MAX_ARRIVALS,
    MAX_CALLS, MAX_QUEUE, MAX_REFUSAL_COST, MAX_SERVICES, MAX_WORKERS,
};
pub use defense::{
    Balancer, Codel, CodelConfig, ConcurrencyLimit, ConcurrencyLimiter, Discipline, QueueDiscipline,
    ReplicaReport, ShedBy,
};
pub use engine::{run, run_measured, run_stoppable, Measured, Until};
pub use network::Link;
pub(crate) use purge::{FLOOR as PENDING_FLOOR, PER_HOLDER as PENDING_PER_HOLDER};
pub use stats::{LatencyHist, ServicePoint, ServiceReport};
pub use topology::{Edge, Node, Topology};
