//! [`FlakyServer`]: a local axum server on 127.0.0.1 that fails its first requests, for the
//! tower and reqwest integration tests (retries, `Retry-After`, circuit breakers, hedges).

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Requests a [`FlakyServer`] answers before it refuses everything with `410 Gone` (bounds a
/// runaway client).
pub const MAX_REQUESTS: u32 = 50;

/// How a [`FlakyServer`] answers; start one with [`FlakyServer::start`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flaky {
    /// Requests answered with `status` before the server answers `200 OK`.
    pub fail_first: u32,
    /// The failing status (default `503 Service Unavailable`).
    pub status: StatusCode,
    /// A `Retry-After` value sent with each failing answer (default none).
    pub retry_after: Option<&'static str>,
    /// How long the very first request waits before it is answered (default none: a hedge
    /// test's slow first attempt).
    pub slow_first: Option<Duration>,
}

impl Flaky {
    /// Fails the first `fail_first` requests with 503, then answers 200.
    pub fn failing(fail_first: u32) -> Flaky {
        Flaky { fail_first, status: StatusCode::SERVICE_UNAVAILABLE, retry_after: None, slow_first: None }
    }
}

struct Shared {
    hits: AtomicU32,
    fail_first: AtomicU32,
    flaky: Flaky,
}

/// A local axum server on 127.0.0.1 and a free port, answering every path as [`Flaky`] says;
/// it counts the requests it receives and stops when dropped.
#[derive(Debug)]
pub struct FlakyServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("hits", &self.hits).field("flaky", &self.flaky).finish()
    }
}

impl FlakyServer {
    /// Binds 127.0.0.1:0 and serves on the current tokio runtime.
    ///
    /// # Panics
    /// If the loopback port cannot be bound (a test's setup failure).
    pub async fn start(flaky: Flaky) -> FlakyServer {
        let shared =
            Arc::new(Shared { hits: AtomicU32::new(0), fail_first: AtomicU32::new(flaky.fail_first), flaky });
        let app = axum::Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("the bound address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async {
                stopped.await.ok();
            };
            axum::serve(listener, app).with_graceful_shutdown(shutdown).await.expect("serve");
        });
        FlakyServer { addr, shared, _stop: stop }
    }

    /// Requests received so far.
    pub fn hits(&self) -> u32 {
        self.shared.hits.load(Ordering::SeqCst)
    }

    /// Answers 200 from now on (a dependency that recovers).
    pub fn heal(&self) {
        self.shared.fail_first.store(0, Ordering::SeqCst);
    }

    /// The server's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR/thing`.
    pub fn url(&self) -> String {
        format!("http://{}/thing", self.addr)
    }
}

async fn answer(State(s): State<Arc<Shared>>) -> (StatusCode, HeaderMap) {
    let n = s.hits.fetch_add(1, Ordering::SeqCst);
    if let (0, Some(wait)) = (n, s.flaky.slow_first) {
        tokio::time::sleep(wait).await;
    }
    let mut headers = HeaderMap::new();
    let status = match n {
        n if n >= MAX_REQUESTS => StatusCode::GONE,
        n if n < s.fail_first.load(Ordering::SeqCst) => {
            if let Some(v) = s.flaky.retry_after {
                headers.insert("retry-after", HeaderValue::from_static(v));
            }
            s.flaky.status
        }
        _ => StatusCode::OK,
    };
    (status, headers)
}
