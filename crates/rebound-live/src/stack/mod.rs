//! One service of a scenario's `[[service]]` graph as a real HTTP/1.1 process on loopback: the
//! live twin of the simulator's service (`rebound serve --scenario FILE --service NAME`).
//!
//! Why: the simulator's verdicts are only as good as its model. Running the same scenario as
//! real processes — real sockets, a real scheduler, the library's real executors — and
//! comparing the two (`rebound experiment live --scenario`, which starts one of these per
//! service replica) is what makes a simulated verdict worth acting on. So each piece here is
//! the model's, on the real clock: the simulator's samplers for service times, its CoDel,
//! queue disciplines and concurrency limits ([`rebound_sim::graph`]), the library's retry,
//! budgets, throttles, breakers and hedges for the calls.
//!
//! ## One request (`GET /` or `POST /`)
//! 1. A hard-down outage answers 503 at once. The token bucket (`rate_limit`, `burst`) answers
//!    429 + `Retry-After` when empty ([`crate::limit`]).
//! 2. Admission ([`admission`]): `concurrency_limit`, then a free worker (`workers`), else the
//!    queue (`queue`, taken by `queue_discipline`, through `codel`), else shed (`on_full`:
//!    `error` answers 503 at once; `drop` holds the request unanswered until its caller's
//!    deadline has passed (at most [`DROP_HOLD`]) — its caller times out — then answers 503).
//! 3. A request whose caller already gave up (`deadline_propagation`: its caller's
//!    `x-rebound-deadline`, Unix epoch milliseconds, past; or without it, its
//!    `x-rebound-timeout-ms` since it arrived) is dropped when a worker takes it: `expired`, 503.
//! 4. Service time: the scenario's `service_time` drawn by the simulator's [`rebound_sim::graph::Sampler`] (a
//!    seeded RNG: `--seed`, the service's index and the replica), × a capacity cut's
//!    slowdown, waited by `tokio::time::sleep` while holding the worker (the timer's lateness,
//!    about a 1 ms tick per sleep, is taken off the service's next service times, so that
//!    the mean — its capacity — is the model's: see `serve.rs`'s `wait`).
//! 5. `error_rate` (and an `errors` outage's): 503 without the calls.
//! 6. The calls in order ([`calls`]); the first that fails for good makes the answer 503.
//!
//! The work runs in a task of its own: a caller that times out and hangs up does not stop it
//! (the model's callee does not know its caller gave up), and a request its caller closed
//! before the service read it (one that waited in a stopped service's accept backlog) is
//! still read and served: the connection loop allows half-closed connections (`conn.rs`). A hard-down outage that begins fails
//! every request in the service at once. Shed answers carry `x-rebound-shed: queue_full |
//! codel | concurrency_limit | rate_limit`.
//!
//! ## Metrics (`GET /metrics`, Prometheus text, this process only)
//! | series | labels | what |
//! |---|---|---|
//! | `rebound_service_info` | `service`, `replica` | always 1: whom a scraper reads (an addition to the contract) |
//! | `rebound_service_arrivals_total` | `kind="first"\|"retry"` | attempts arrived (by `x-rebound-attempt`: 1 is first, none counts as first) |
//! | `rebound_service_answers_total` | `outcome="ok"\|"error"\|"shed"\|"expired"` | requests answered |
//! | `rebound_service_shed_total` | `by="queue_full"\|"codel"\|"concurrency_limit"\|"rate_limit"` | sheds by defense (sum = `outcome="shed"`) |
//! | `rebound_service_queue` | — | gauge: requests waiting for a worker |
//! | `rebound_service_in_flight` | — | gauge: requests queued or in service |
//! | `rebound_service_latency_seconds` | `le` | histogram, arrival to answer, sheds included: buckets 0.5 ms × 1.1^i up to the first ≥ 120 s, `le` in seconds (`5.000000e-4`, …) |
//! | `rebound_call_attempts_total` | `to`, `outcome="ok"\|"error"\|"timedout"\|"rejected"\|"abandoned"` | this process's attempts at each callee (`rejected`: refused by its budget, throttle or breaker before sending; `abandoned`: a hedge copy given up once another copy answered) |
//! | `rebound_call_timedout_by_replica_total` | `to`, `replica` | this process's attempts at each callee replica (`--peer` order) that timed out — per replica, where `rebound_call_attempts_total` sums them; a replica appears once one has timed out (an addition to the contract, for the live twin's per-replica breakdown) |
//! | `rebound_call_requests_total` | `to`, `outcome="ok"\|"failed"` | calls after their retries |
//!
//! ## Admin
//! `POST /admin/outage` (`{"kind":"hard-down"}`, `{"kind":"capacity-cut","slowdown":F}`,
//! `{"kind":"errors","error_rate":P}`), `DELETE /admin/outage`, `GET /admin/outage`: see
//! [`admin`]. Behind [`crate::guard`]: the service's own `Host`, no foreign `Origin`,
//! `Content-Type: application/json` on a `POST`.
//!
//! ## Refused at start (exit 2, naming the key)
//! `service_time = "s5"` (S5's server is `rebound serve` without `--scenario`), a non-zero
//! `refusal_cost`, a `responsive:` call policy, a `redis:` budget.

pub mod admin;
pub mod admission;
pub mod calls;
mod conn;
mod exposition;
mod hedge;
pub mod metrics;
mod request;
mod resolve;
mod route;
mod serve;

pub use exposition::labelled;
pub use resolve::{refusals, Peer, StackConfig};
pub(crate) use route::choose;
pub use serve::{Service, DROP_HOLD, DROP_MARGIN};
