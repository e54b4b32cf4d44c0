//! The live service's HTTP side: binding, the routes, and one request's way through the
//! service (see the [module docs](super) for the steps).

use super::admin::{self, Outage, Switch};
use super::admission::Gate;
use super::calls::{Call, ATTEMPT_HEADER, DEADLINE_HEADER, TIMEOUT_HEADER};
use super::metrics::{ServiceCounters, ShedBy};
use super::request::{handle, outcome, Answer};
use super::resolve::{self, StackConfig};
use crate::error::LiveError;
use crate::limit::Limiter;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rebound_sim::graph::{Codel, ConcurrencyLimiter, Node, Sampler};
use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// The longest a request shed with `on_full = "drop"` is held unanswered before it is
/// answered 503: two minutes, the latency histogram's reach. One whose caller sent its
/// deadline (`x-rebound-deadline` or `x-rebound-timeout-ms`) is held until then plus
/// [`DROP_MARGIN`]: its caller has timed out by then.
pub const DROP_HOLD: Duration = Duration::from_secs(120);
/// How long past its caller's deadline a dropped request is held: 100 ms.
pub const DROP_MARGIN: Duration = Duration::from_millis(100);

/// A service's state, shared by its requests.
pub(super) struct Inner {
    pub(super) node: Node,
    pub(super) replica: u32,
    pub(super) gate: Arc<Gate>,
    pub(super) sampler: Sampler,
    pub(super) rng: Mutex<SmallRng>,
    pub(super) limiter: Option<Limiter>,
    pub(super) switch: Switch,
    pub(super) counters: Arc<ServiceCounters>,
    pub(super) calls: Vec<Call>,
    /// Timer lateness owed, in nanoseconds (see `request.rs`'s `wait`).
    pub(super) owed_ns: AtomicU64,
    /// Its spans' recorder (`--traces`), and its own address for them.
    pub(super) traces: Option<(crate::traces::Recorder, SocketAddr)>,
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
            .pool_idle_timeout(super::conn::POOL_IDLE)
            .build()
            .map_err(|e| LiveError::Io {
                what: "building the HTTP client".into(),
                cause: std::io::Error::other(e),
            })?;
        let calls = resolve::calls(config, &node, seed, &client)?;
        if !config.listen.ip().is_loopback() {
            return Err(LiveError::RemoteListen(config.listen));
        }
        let listener = crate::server::listen(config.listen)
            .map_err(LiveError::io(format!("--listen {}", config.listen)))?;
        let local = listener.local_addr().map_err(LiveError::io(format!("--listen {}", config.listen)))?;
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
            replica: config.replica,
            owed_ns: AtomicU64::new(0),
            traces: config.traces.clone().map(|r| (r, local)),
        };
        Ok(Service { listener, inner: Arc::new(inner) })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Serves until `shutdown` completes, then lets requests finish for at most
    /// [`crate::server::SHUTDOWN_GRACE`]. A failed accept (out of file descriptors) is retried
    /// after 50 ms.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) {
        let guard = Arc::new(crate::guard::Allowed { local: self.local_addr(), name: "the service" });
        let admin_routes = Router::new()
            .route("/admin/outage", get(outage_now).post(outage_post).delete(outage_end))
            .route_layer(axum::middleware::from_fn_with_state(guard, crate::guard::guard));
        let app = Router::new()
            .route("/metrics", get(metrics))
            .merge(admin_routes)
            .fallback(api)
            .with_state(self.inner);
        super::conn::serve(self.listener, app, shutdown).await;
    }
}

async fn metrics(State(s): State<Arc<Inner>>) -> Response {
    let calls: Vec<(&str, &super::metrics::CallCounters)> =
        s.calls.iter().map(|c| (c.to.as_str(), &c.counters)).collect();
    let text = s.counters.render(&s.node.name, s.replica, &calls);
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

async fn api(State(s): State<Arc<Inner>>, headers: HeaderMap) -> Response {
    let arrived = Instant::now();
    let number = |name: &str| {
        headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok())
    };
    s.counters.arrival(number(ATTEMPT_HEADER).is_some_and(|k| k > 1));
    let deadline = match number(DEADLINE_HEADER) {
        Some(unix_ms) => Some(instant_of(unix_ms, arrived)),
        None => number(TIMEOUT_HEADER).map(|ms| arrived + Duration::from_millis(ms.min(86_400_000))),
    };
    let span = s.traces.as_ref().map(|(r, local)| r.server(&headers, *local));
    // Counted in the task: a caller that hangs up does not keep its answer from the metrics.
    let task = tokio::spawn(async move {
        let answer = handle(&s, arrived, deadline, span.as_ref().map(|s| s.context())).await;
        if let Some(o) = outcome(&answer) {
            s.counters.answer(o, arrived.elapsed());
        }
        if let Some(span) = span {
            span.end(status(&answer).as_u16());
        }
        answer
    });
    let answer = task.await.unwrap_or(Answer::Error);
    let body = match answer {
        Answer::Ok => "OK\n",
        Answer::Error => "error\n",
        Answer::Expired => "expired\n",
        Answer::Shed(_) | Answer::Dropped => "shed\n",
        Answer::Limited(_) => "Too many requests\n",
    };
    let mut res = (status(&answer), body).into_response();
    if let Answer::Limited(ref f) = answer {
        crate::server::add_fields(&mut res, f);
    }
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

/// An answer's status code: 200, 429 (rate limited), else 503.
fn status(answer: &Answer) -> StatusCode {
    match answer {
        Answer::Ok => StatusCode::OK,
        Answer::Limited(_) => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// The instant of `unix_ms` (milliseconds since the Unix epoch) on the clock where `now` is now;
/// a past one is `now` (already late), a far one at most a day ahead.
fn instant_of(unix_ms: u64, now: Instant) -> Instant {
    let then = std::time::UNIX_EPOCH + Duration::from_millis(unix_ms);
    match then.duration_since(std::time::SystemTime::now()) {
        Ok(ahead) => now + ahead.min(Duration::from_secs(86_400)),
        Err(_) => now,
    }
}
