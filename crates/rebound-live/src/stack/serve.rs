//! The live service's HTTP side: binding, the routes, and one request's way through the
//! service (see the [module docs](super) for the steps).

use super::admin::{self, Outage, Switch};
use super::admission::{Admit, Entry, Gate};
use super::calls::{Call, ATTEMPT_HEADER, TIMEOUT_HEADER};
use super::metrics::{Outcome, ServiceCounters, ShedBy};
use super::resolve::{self, StackConfig};
use crate::error::LiveError;
use crate::limit::{LimitFields, Limiter};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rebound_sim::graph::{Codel, ConcurrencyLimiter, Node, Sampler};
use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// How long a request shed with `on_full = "drop"` is held unanswered (its caller times out
/// first) before it is answered 503: two minutes, the latency histogram's reach.
pub const DROP_HOLD: Duration = Duration::from_secs(120);

struct Inner {
    node: Node,
    gate: Arc<Gate>,
    sampler: Sampler,
    rng: Mutex<SmallRng>,
    limiter: Option<Limiter>,
    switch: Switch,
    counters: Arc<ServiceCounters>,
    calls: Vec<Call>,
    /// Timer lateness owed, in nanoseconds (see [`wait`]).
    owed_ns: AtomicU64,
}

/// A bound live service, not yet serving.
#[derive(Debug)]
pub struct Service {
    listener: TcpListener,
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service").field("name", &self.node.name).finish_non_exhaustive()
    }
}

impl Service {
    /// Checks the scenario's keys for the service and binds the listen address.
    ///
    /// # Errors
    /// [`LiveError::Invalid`] naming a flag (`--service`, `--replica`, `--peer`) or a key the
    /// service cannot run live; [`LiveError::RemoteListen`] for a non-loopback address;
    /// [`LiveError::Io`] if it cannot be bound.
    pub async fn bind(config: &StackConfig) -> Result<Service, LiveError> {
        let (node, index, sampler) = resolve::node(config)?;
        let seed = config.seed.wrapping_add(((index as u64) << 16) | u64::from(config.replica));
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(node.workers.min(1024) as usize)
            .build()
            .map_err(|e| LiveError::Io {
                what: "building the HTTP client".into(),
                source: std::io::Error::other(e),
            })?;
        let calls = resolve::calls(config, &node, seed, &client)?;
        if !config.listen.ip().is_loopback() {
            return Err(LiveError::RemoteListen(config.listen));
        }
        let listener = crate::server::listen(config.listen)
            .map_err(LiveError::io(format!("--listen {}", config.listen)))?;
        let counters = Arc::new(ServiceCounters::default());
        let gate = Gate::new(
            node.workers,
            node.queue,
            node.discipline,
            node.codel.as_ref().map(Codel::new),
            node.concurrency_limit.map(ConcurrencyLimiter::new),
            counters.clone(),
        );
        let limiter = node.rate_limit.map(|(per_s, burst)| {
            Limiter::with_rate(per_s, NonZeroU32::new(burst.max(1)).expect("at least 1"))
        });
        let inner = Inner {
            gate: Arc::new(gate),
            sampler,
            rng: Mutex::new(SmallRng::seed_from_u64(seed)),
            limiter,
            switch: Switch::default(),
            counters,
            calls,
            node,
            owed_ns: AtomicU64::new(0),
        };
        Ok(Service { listener, inner: Arc::new(inner) })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Serves until `shutdown` completes, then lets requests finish for at most
    /// [`crate::server::SHUTDOWN_GRACE`].
    ///
    /// # Errors
    /// [`LiveError::Io`] if accepting connections fails.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), LiveError> {
        let app = Router::new()
            .route("/metrics", get(metrics))
            .route("/admin/outage", get(outage_now).post(outage_post).delete(outage_end))
            .fallback(api)
            .with_state(self.inner);
        crate::server::serve_with_grace(self.listener, app, shutdown).await
    }
}

async fn metrics(State(s): State<Arc<Inner>>) -> Response {
    let calls: Vec<(&str, &super::metrics::CallCounters)> =
        s.calls.iter().map(|c| (c.to.as_str(), &c.counters)).collect();
    let text = s.counters.render(&calls);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn outage_now(State(s): State<Arc<Inner>>) -> Response {
    let body = serde_json::to_string(&s.switch.now()).unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn outage_post(State(s): State<Arc<Inner>>, body: Bytes) -> Response {
    let (status, text, began) = admin::post(&s.switch, &body);
    if began {
        s.gate.fail_queued();
    }
    (status, text).into_response()
}

async fn outage_end(State(s): State<Arc<Inner>>) -> StatusCode {
    s.switch.set(Outage::None);
    StatusCode::NO_CONTENT
}

/// How a request ends.
enum Answer {
    Ok,
    Error,
    Shed(ShedBy),
    Expired,
    Limited(LimitFields),
    /// Shed with `on_full = "drop"`: counted at once, answered after [`DROP_HOLD`].
    Dropped,
}

async fn api(State(s): State<Arc<Inner>>, headers: HeaderMap) -> Response {
    let arrived = Instant::now();
    let number = |name: &str| {
        headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok())
    };
    s.counters.arrival(number(ATTEMPT_HEADER).is_some_and(|k| k > 1));
    let deadline = number(TIMEOUT_HEADER).map(|ms| arrived + Duration::from_millis(ms.min(86_400_000)));
    // Counted in the task: a caller that hangs up does not keep its answer from the metrics.
    let task = tokio::spawn(async move {
        let answer = handle(&s, arrived, deadline).await;
        if let Some(o) = outcome(&answer) {
            s.counters.answer(o, arrived.elapsed());
        }
        answer
    });
    let answer = task.await.unwrap_or(Answer::Error);
    let mut res = match answer {
        Answer::Ok => (StatusCode::OK, "OK\n").into_response(),
        Answer::Error => (StatusCode::SERVICE_UNAVAILABLE, "error\n").into_response(),
        Answer::Expired => (StatusCode::SERVICE_UNAVAILABLE, "expired\n").into_response(),
        Answer::Shed(_) | Answer::Dropped => (StatusCode::SERVICE_UNAVAILABLE, "shed\n").into_response(),
        Answer::Limited(ref f) => {
            let mut res = (StatusCode::TOO_MANY_REQUESTS, "Too many requests\n").into_response();
            crate::server::add_fields(&mut res, f);
            res
        }
    };
    let shed = match answer {
        Answer::Shed(by) => Some(by),
        Answer::Dropped => Some(ShedBy::QueueFull),
        Answer::Limited(_) => Some(ShedBy::RateLimit),
        _ => None,
    };
    if let Some(by) = shed {
        res.headers_mut().insert("x-rebound-shed", HeaderValue::from_static(by.label()));
    }
    res
}

/// The outcome to count at the end of a request (a dropped one was counted when shed).
fn outcome(a: &Answer) -> Option<Outcome> {
    Some(match a {
        Answer::Ok => Outcome::Ok,
        Answer::Error => Outcome::Error,
        Answer::Expired => Outcome::Expired,
        Answer::Shed(by) => Outcome::Shed(*by),
        Answer::Limited(_) => Outcome::Shed(ShedBy::RateLimit),
        Answer::Dropped => return None,
    })
}

/// One request through the service, in its own task.
async fn handle(s: &Inner, arrived: Instant, deadline: Option<Instant>) -> Answer {
    if s.switch.now() == Outage::HardDown {
        return Answer::Error;
    }
    if let Some(Err(refused)) = s.limiter.as_ref().map(Limiter::check) {
        return Answer::Limited(refused);
    }
    let entry = s.gate.enter();
    if let Entry::Shed(by) = entry {
        if by == ShedBy::QueueFull && s.node.drop_when_full {
            s.counters.answer(Outcome::Shed(by), arrived.elapsed());
            tokio::time::sleep(DROP_HOLD).await;
            return Answer::Dropped;
        }
        return Answer::Shed(by);
    }
    let mut down = s.switch.subscribe();
    let served = async {
        let _slot = match entry {
            Entry::Serve(slot) => slot,
            Entry::Wait(rx) => match rx.await {
                Ok(Admit::Serve) => s.gate.slot(),
                Ok(Admit::Shed) => return Answer::Shed(ShedBy::Codel),
                Ok(Admit::Fail) | Err(_) => return Answer::Error,
            },
            Entry::Shed(by) => return Answer::Shed(by),
        };
        if s.node.deadline_propagation && deadline.is_some_and(|d| Instant::now() >= d) {
            return Answer::Expired;
        }
        work(s).await
    };
    let answer = tokio::select! {
        a = served => a,
        _ = down.wait_for(|o| *o == Outage::HardDown) => Answer::Error,
    };
    s.gate.sample(arrived.elapsed(), !matches!(answer, Answer::Ok));
    answer
}

/// The most a timer's lateness is carried into the next service time: the timer's 1 ms tick
/// and a scheduling delay, not a pause (SIGSTOP) that no later request should repay.
pub const MAX_CARRIED_LATENESS: Duration = Duration::from_millis(2);

/// Waits `ns` of service time on tokio's timer, whose 1 ms tick makes every sleep late by
/// about half a tick (+11 % on `exponential:5ms`, measured). The lateness (at most
/// [`MAX_CARRIED_LATENESS`] per sleep) is owed by the service and taken off its next service
/// times, so that the *mean* service time — the service's capacity — is the model's.
async fn wait(owed: &AtomicU64, ns: u64) {
    let credit = owed.fetch_update(Relaxed, Relaxed, |o| Some(o.saturating_sub(ns))).unwrap_or(0).min(ns);
    let target = Duration::from_nanos(ns - credit);
    let start = Instant::now();
    tokio::time::sleep(target).await;
    let late = start.elapsed().saturating_sub(target).min(MAX_CARRIED_LATENESS);
    owed.fetch_add(u64::try_from(late.as_nanos()).unwrap_or(0), Relaxed);
}

/// The service time, the error draws, then the calls in order.
async fn work(s: &Inner) -> Answer {
    let ns = {
        let mut rng = s.rng.lock().unwrap_or_else(|e| e.into_inner());
        s.sampler.sample(&mut *rng, s.counters.in_flight.load(Relaxed)) * s.switch.now().slowdown()
    };
    wait(&s.owed_ns, ns.min(1e15) as u64).await;
    let failed = {
        let mut rng = s.rng.lock().unwrap_or_else(|e| e.into_inner());
        let own = s.node.error_rate > 0.0 && rng.random::<f64>() < s.node.error_rate;
        let outage = s.switch.now().error_rate();
        own || (outage > 0.0 && rng.random::<f64>() < outage)
    };
    if failed {
        return Answer::Error;
    }
    for call in &s.calls {
        if !call.run().await {
            return Answer::Error;
        }
    }
    Answer::Ok
}
