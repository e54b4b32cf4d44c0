//! The tower stack against a real axum server on 127.0.0.1 that answers 503 to its first N
//! requests, with tokio's clock paused so that backoff waits take no real time.

use axum::extract::State;
use axum::http::StatusCode;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rebound_retry::Policy;
use rebound_tower::{clone_http_request, HttpStatuses, ReboundPolicy, RetryLayer};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tower::{Service, ServiceBuilder, ServiceExt};

/// Requests a test server answers before it refuses everything (bounds a runaway client).
const MAX_REQUESTS: u32 = 50;

/// A local server failing its first `fail_first` requests with 503. It stops when dropped.
struct FlakyServer {
    addr: SocketAddr,
    hits: Arc<AtomicU32>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl FlakyServer {
    async fn start(fail_first: u32) -> FlakyServer {
        let hits = Arc::new(AtomicU32::new(0));
        let app = axum::Router::new()
            .fallback(move |State(hits): State<Arc<AtomicU32>>| async move {
                match hits.fetch_add(1, Ordering::SeqCst) {
                    n if n >= MAX_REQUESTS => StatusCode::GONE,
                    n if n < fail_first => StatusCode::SERVICE_UNAVAILABLE,
                    _ => StatusCode::OK,
                }
            })
            .with_state(hits.clone());
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
        FlakyServer { addr, hits, _stop: stop }
    }

    fn hits(&self) -> u32 {
        self.hits.load(Ordering::SeqCst)
    }

    fn request(&self, method: &str) -> http::Request<Full<Bytes>> {
        let uri = format!("http://{}/thing", self.addr);
        http::Request::builder().method(method).uri(uri).body(Full::new(Bytes::from_static(b"x"))).unwrap()
    }
}

fn policy(max_retries: u64) -> Policy {
    Policy::exponential(Duration::from_millis(100), 2.0).max_retries(max_retries).build().unwrap()
}

type Req = http::Request<Full<Bytes>>;

/// Sends `req` through a retry stack over a hyper client; returns the status and the
/// (virtual) time it took.
async fn send(policy: ReboundPolicy<Req, HttpStatuses>, req: Req) -> (StatusCode, Duration) {
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(client);
    let start = Instant::now();
    let res = service.ready().await.unwrap().call(req).await.unwrap();
    (res.status(), start.elapsed())
}

fn http_policy(max_retries: u64) -> ReboundPolicy<Req, HttpStatuses> {
    ReboundPolicy::with_cloner(policy(max_retries), clone_http_request).when(HttpStatuses::default())
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn retries_503_until_200_with_the_policy_delays() {
    let server = FlakyServer::start(3).await;
    let (status, took) = send(http_policy(5), server.request("GET")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(server.hits(), 4);
    assert_eq!(took, Duration::from_millis(100 + 200 + 400), "waits of 100, 200, 400 ms");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn gives_back_the_last_response_when_retries_run_out() {
    let server = FlakyServer::start(10).await;
    let (status, took) = send(http_policy(2), server.request("PUT")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(server.hits(), 3);
    assert_eq!(took, Duration::from_millis(300));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn post_is_retried_only_with_opt_in() {
    let server = FlakyServer::start(1).await;
    let (status, _) = send(http_policy(5), server.request("POST")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));

    let opt_in = http_policy(5).when(HttpStatuses::default().retry_non_idempotent(true));
    let (status, _) = send(opt_in, server.request("POST")).await;
    assert_eq!((status, server.hits()), (StatusCode::OK, 2));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn requests_that_cannot_be_cloned_are_sent_once() {
    let server = FlakyServer::start(1).await;
    let never = ReboundPolicy::with_cloner(policy(5), |_: &Req| None).when(HttpStatuses::default());
    let (status, _) = send(never, server.request("GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn max_elapsed_stops_before_a_wait_that_would_pass_it() {
    let server = FlakyServer::start(10).await;
    let limited = policy(10).to_builder().max_elapsed(Duration::from_millis(350)).build().unwrap();
    let p = ReboundPolicy::with_cloner(limited, clone_http_request).when(HttpStatuses::default());
    let (status, took) = send(p, server.request("GET")).await;
    // 100 + 200 = 300 ms fit; the next wait (400 ms) would end at 700 ms > 350 ms.
    assert_eq!(
        (status, server.hits(), took),
        (StatusCode::SERVICE_UNAVAILABLE, 3, Duration::from_millis(300))
    );
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_budget_stops_retries_and_hears_of_successes() {
    use rebound_retry::budget::GrpcBudget;
    let server = FlakyServer::start(3).await;
    // gRPC A6 with 4 tokens, 1 back per success: a failure leaving 3 (> 4/2) may retry, one
    // leaving 2 may not.
    let budget = Arc::new(GrpcBudget::new(4.0, 1.0).unwrap());
    let policy = http_policy(5).budget(budget.clone());
    let (status, _) = send(policy.clone(), server.request("GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 2), "1 try + 1 retry");
    let (status, _) = send(policy.clone(), server.request("GET")).await;
    assert_eq!((status, server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 3), "budget spent");
    assert_eq!(budget.tokens(), 1.0);
    let (status, _) = send(policy, server.request("GET")).await;
    assert_eq!((status, server.hits(), budget.tokens()), (StatusCode::OK, 4, 2.0), "a success adds 1");
}
