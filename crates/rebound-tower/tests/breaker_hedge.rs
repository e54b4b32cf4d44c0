//! The breaker and hedge layers over a hyper client against a local axum server on 127.0.0.1.
//! Real time, with wide margins: the breaker stays open for a minute where a test needs it
//! open, and a test needing it to reopen for a probe sleeps four times its open duration.

use axum::extract::State;
use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::{BreakerState, CircuitBreaker, HedgePolicy};
use rebound_tower::{BreakerError, BreakerLayer, HedgeLayer};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::{Service, ServiceBuilder, ServiceExt};

#[derive(Default)]
struct Shared {
    hits: AtomicU32,
    healthy: AtomicBool,
    slow_first: AtomicBool,
}

/// A local server: 503 while unhealthy, 200 once healthy; with `slow_first`, its first request
/// takes 10 s. Stops when dropped.
struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Server {
    async fn start(healthy: bool, slow_first: bool) -> Server {
        let shared = Arc::new(Shared::default());
        shared.healthy.store(healthy, Ordering::SeqCst);
        shared.slow_first.store(slow_first, Ordering::SeqCst);
        let app = axum::Router::new()
            .fallback(|State(s): State<Arc<Shared>>| async move {
                let n = s.hits.fetch_add(1, Ordering::SeqCst);
                if n == 0 && s.slow_first.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                }
                if s.healthy.load(Ordering::SeqCst) {
                    StatusCode::OK
                } else {
                    StatusCode::SERVICE_UNAVAILABLE
                }
            })
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    stopped.await.ok();
                })
                .await
                .unwrap();
        });
        Server { addr, shared, _stop: stop }
    }

    fn hits(&self) -> u32 {
        self.shared.hits.load(Ordering::SeqCst)
    }

    fn request(&self) -> Req {
        let uri = format!("http://{}/thing", self.addr);
        http::Request::builder().uri(uri).body(Full::new(Bytes::new())).unwrap()
    }
}

type Req = http::Request<Full<Bytes>>;

fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

fn server_error<B, E>(r: &Result<http::Response<B>, E>) -> bool {
    r.as_ref().map_or(true, |res| res.status().is_server_error())
}

#[tokio::test]
async fn an_open_breaker_answers_without_sending() {
    let server = Server::start(false, false).await;
    let breaker = Arc::new(CircuitBreaker::consecutive(2, Duration::from_secs(60)).build().unwrap());
    let mut svc = ServiceBuilder::new()
        .layer(BreakerLayer::new(breaker.clone()).classify(server_error))
        .service(client());
    for _ in 0..2 {
        let res = svc.ready().await.unwrap().call(server.request()).await.unwrap();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
    assert_eq!(breaker.state(), BreakerState::Open);
    let err = svc.ready().await.unwrap().call(server.request()).await.unwrap_err();
    assert!(matches!(err, BreakerError::Open(o) if o.retry_after.is_some()));
    assert_eq!(server.hits(), 2, "the third request was not sent");
}

#[tokio::test]
async fn a_successful_probe_closes_the_breaker() {
    let server = Server::start(false, false).await;
    let open = Duration::from_millis(50);
    let breaker = Arc::new(CircuitBreaker::consecutive(1, open).build().unwrap());
    let mut svc = ServiceBuilder::new()
        .layer(BreakerLayer::new(breaker.clone()).classify(server_error))
        .service(client());
    svc.ready().await.unwrap().call(server.request()).await.unwrap();
    assert_eq!(breaker.state(), BreakerState::Open);
    server.shared.healthy.store(true, Ordering::SeqCst);
    tokio::time::sleep(open * 4).await;
    let res = svc.ready().await.unwrap().call(server.request()).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(breaker.state(), BreakerState::Closed);
    assert_eq!(breaker.counters().probes, 1);
}

#[tokio::test]
async fn a_hedge_answers_while_the_first_request_hangs() {
    let server = Server::start(true, true).await;
    let policy = HedgePolicy::fixed(2, Duration::from_millis(50)).unwrap();
    let clone = |r: &Req| {
        let mut copy =
            http::Request::builder().method(r.method()).uri(r.uri()).body(r.body().clone()).ok()?;
        *copy.headers_mut() = r.headers().clone();
        Some(copy)
    };
    let mut svc = ServiceBuilder::new().layer(HedgeLayer::new(policy, clone)).service(client());
    let start = Instant::now();
    let res = svc.ready().await.unwrap().call(server.request()).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert_eq!(server.hits(), 2);
}
