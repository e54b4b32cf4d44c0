//! S5's server: every request waits, in 50 ms ticks, until its time in the server exceeds the
//! delay [`DelayModel::delay`] gives for the server's *current* concurrency. The server does no
//! work and never notices a client that gave up: an abandoned request keeps counting until its
//! delay has passed. That is what makes fixed retries a metastable failure — each timed-out
//! attempt leaves a request behind that slows every other one.
//!
//! Extras for the lab: an optional token bucket (`governor`) answering 429 with `Retry-After`
//! (S3) and sending `RateLimit` / `RateLimit-Policy` from its state on every answer
//! ([`crate::limit`]), `POST /admin/pause` and `/admin/resume` (requests wait while paused;
//! behind [`crate::guard`]: the server's own `Host`, no foreign `Origin`, `Content-Type:
//! application/json`), `GET /metrics` in the Prometheus text format, and a graceful shutdown.

use crate::error::LiveError;
use crate::limit::{LimitFields, Limiter};
use crate::metrics::Counters;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use rebound_sim::DelayModel;
use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::watch;

/// S5's tick: the handler re-checks its delay every 50 ms.
pub const TICK: Duration = Duration::from_millis(50);
/// The listen backlog: connections the kernel holds for the server while it is stopped. 511 is
/// what nginx and Redis ask for on Linux, and what the simulator's S5 scenario models.
pub const BACKLOG: u32 = 511;
/// How long a shutdown waits for requests in flight before it closes the rest.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What to serve.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The listen address; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Accept a non-loopback `listen` address.
    pub allow_remote: bool,
    /// S5's delay model.
    pub model: DelayModel,
    /// Requests per second admitted (a token bucket of as many tokens); the rest get 429.
    pub rate_limit: Option<NonZeroU32>,
}

/// A handle on a running server's state: counters and the pause switch.
#[derive(Debug, Clone)]
pub struct Handle {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    model: DelayModel,
    counters: Counters,
    paused: watch::Sender<bool>,
    limiter: Option<Limiter>,
}

impl Handle {
    /// The counters (concurrency, last delay, answers, latency histogram).
    pub fn counters(&self) -> &Counters {
        &self.shared.counters
    }

    /// Requests in the server now.
    pub fn concurrency(&self) -> u64 {
        self.shared.counters.concurrency.load(Relaxed)
    }

    /// The delay target of the last answered request.
    pub fn last_delay(&self) -> Duration {
        Duration::from_nanos(self.shared.counters.last_delay_ns.load(Relaxed))
    }

    /// Holds (`true`) or releases (`false`) every request.
    pub fn set_paused(&self, paused: bool) {
        self.shared.paused.send_replace(paused);
    }

    /// S5's status line: `concurrency: C, last delay: D`.
    pub fn status_line(&self) -> String {
        format!("concurrency: {}, last delay: {:?}", self.concurrency(), self.last_delay())
    }
}

/// A bound server, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    handle: Handle,
}

impl Server {
    /// Binds the listen address.
    ///
    /// # Errors
    /// [`LiveError::RemoteListen`] for a non-loopback address without `allow_remote`;
    /// [`LiveError::Io`] if the address cannot be bound.
    pub async fn bind(config: &ServerConfig) -> Result<Server, LiveError> {
        if !config.allow_remote && !config.listen.ip().is_loopback() {
            return Err(LiveError::RemoteListen(config.listen));
        }
        let listener = listen(config.listen).map_err(LiveError::io(format!("--listen {}", config.listen)))?;
        let shared = Shared {
            model: config.model,
            counters: Counters::default(),
            paused: watch::channel(false).0,
            limiter: config.rate_limit.map(Limiter::new),
        };
        Ok(Server { listener, handle: Handle { shared: Arc::new(shared) } })
    }

    /// The bound address (the real port when the config said 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// A handle on the server's state.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Serves until `shutdown` completes, then lets requests in flight finish for at most
    /// [`SHUTDOWN_GRACE`].
    ///
    /// # Errors
    /// [`LiveError::Io`] if accepting connections fails.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), LiveError> {
        let guard = Arc::new(crate::guard::Allowed { local: self.local_addr(), name: "the server" });
        let admin_routes = Router::new()
            .route("/admin/pause", post(|s: State<Handle>| admin(s, true)))
            .route("/admin/resume", post(|s: State<Handle>| admin(s, false)))
            .route_layer(axum::middleware::from_fn_with_state(guard, crate::guard::guard));
        let app = Router::new()
            .route("/metrics", get(metrics))
            .merge(admin_routes)
            .fallback(api)
            .with_state(self.handle);
        serve_with_grace(self.listener, app, shutdown).await
    }
}

/// Serves `app` until `shutdown` completes, then lets requests in flight finish for at most
/// [`SHUTDOWN_GRACE`].
pub(crate) async fn serve_with_grace(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), LiveError> {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let signal = async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    };
    let serve = axum::serve(listener, app).with_graceful_shutdown(signal);
    let grace = async move {
        let _ = stop_rx.wait_for(|s| *s).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        r = serve => r.map_err(LiveError::io("serving")),
        () = grace => Ok(()),
    }
}

pub(crate) fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

async fn metrics(State(h): State<Handle>) -> Response {
    let text = h.shared.counters.render(*h.shared.paused.borrow());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn admin(State(h): State<Handle>, paused: bool) -> StatusCode {
    h.set_paused(paused);
    StatusCode::NO_CONTENT
}

/// S5's handler. The wait runs in its own task so a client that hangs up does not end it.
async fn api(State(h): State<Handle>) -> Response {
    let fields = match h.shared.limiter.as_ref().map(Limiter::check) {
        Some(Err(refused)) => {
            h.shared.counters.limited.fetch_add(1, Relaxed);
            let mut res = (StatusCode::TOO_MANY_REQUESTS, "Too many requests\n").into_response();
            add_fields(&mut res, &refused);
            return res;
        }
        Some(Ok(admitted)) => Some(admitted),
        None => None,
    };
    let mut res = match tokio::spawn(wait_out(h.shared.clone())).await {
        Ok(()) => (StatusCode::OK, "OK\n").into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    if let Some(f) = &fields {
        add_fields(&mut res, f);
    }
    res
}

pub(crate) fn add_fields(res: &mut Response, f: &LimitFields) {
    let headers = res.headers_mut();
    let value = |s: &str| HeaderValue::from_str(s).expect("sfv serializes visible ASCII");
    headers.insert("ratelimit", value(&f.ratelimit));
    headers.insert("ratelimit-policy", value(&f.policy));
    if let Some(secs) = f.retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
}

async fn wait_out(shared: Arc<Shared>) {
    let c = &shared.counters;
    let start = Instant::now();
    c.concurrency.fetch_add(1, Relaxed);
    let mut paused = shared.paused.subscribe();
    let _ = paused.wait_for(|p| !*p).await;
    let delay = loop {
        tokio::time::sleep(TICK).await;
        let delay = shared.model.delay(c.concurrency.load(Relaxed));
        if start.elapsed() > delay {
            break delay;
        }
    };
    c.last_delay_ns.store(u64::try_from(delay.as_nanos()).unwrap_or(u64::MAX), Relaxed);
    c.observe(start.elapsed());
    c.concurrency.fetch_sub(1, Relaxed);
}
