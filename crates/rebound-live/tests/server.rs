//! The server in-process on 127.0.0.1:0: S5's delay, the token bucket's 429 + Retry-After,
//! pause and resume, metrics, the loopback rule and shutdown. Real time, bounded to seconds.

use rebound_live::server::{Server, ServerConfig};
use rebound_live::LiveError;
use rebound_sim::DelayModel;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

async fn start(
    rate_limit: Option<u32>,
) -> (String, oneshot::Sender<()>, tokio::task::JoinHandle<Result<(), LiveError>>) {
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        allow_remote: false,
        model: DelayModel::default(),
        rate_limit: rate_limit.and_then(NonZeroU32::new),
    };
    let server = Server::bind(&config).await.unwrap();
    let base = format!("http://{}", server.local_addr());
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(server.run(async move {
        let _ = rx.await;
    }));
    (base, tx, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_after_the_min_delay_and_counts_in_metrics() {
    let (base, stop, task) = start(None).await;
    let client = reqwest::Client::new();
    let t = Instant::now();
    let r = client.get(format!("{base}/api")).send().await.unwrap();
    let took = t.elapsed();
    assert_eq!(r.status(), 200);
    // S5's delay at concurrency 1 is 100 ms (ticks of 50 ms); the upper margin is for a loaded
    // machine, far below the next delay step a wrong model would give.
    assert!(took >= Duration::from_millis(100) && took < Duration::from_secs(3), "{took:?}");
    // The counters are updated before the handler returns, so before the client has its
    // answer: reading them once is exact here (unlike a log written after the response).
    let text = client.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_concurrency"), Some(0.0));
    assert!(text.contains("rebound_requests_total{code=\"200\"} 1\n"), "{text}");
    assert!(text.contains("rebound_request_duration_seconds_count 1\n"), "{text}");
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(6), task).await.expect("shuts down").unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_bucket_answers_429_with_retry_after() {
    // 1 request per second, a bucket of 1: of three requests sent at once (well within the
    // second before the next token), one is admitted and two get 429 with `Retry-After: 1`.
    let (base, _stop, _task) = start(Some(1)).await;
    let client = reqwest::Client::new();
    let get = || async {
        let r = client.get(format!("{base}/api")).send().await.unwrap();
        (r.status().as_u16(), r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string()))
    };
    let (a, b, c) = tokio::join!(get(), get(), get());
    let mut statuses = vec![a, b, c];
    statuses.sort();
    assert_eq!(statuses, [(200, None), (429, Some("1".into())), (429, Some("1".into()))]);
}

/// `POST /admin/{what}` as the experiment sends it (JSON, the server's own Host): its status.
async fn admin(client: &reqwest::Client, base: &str, what: &str) -> u16 {
    let r = client.post(format!("{base}/admin/{what}")).header("content-type", "application/json");
    r.send().await.unwrap().status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_requests_wait_until_resumed_and_count_meanwhile() {
    let (base, _stop, _task) = start(None).await;
    let client = reqwest::Client::new();
    assert_eq!(admin(&client, &base, "pause").await, 204);
    let pending = tokio::spawn(client.get(format!("{base}/api")).send());
    // Wait (bounded) until the request is in the server, then check it is still held.
    let deadline = Instant::now() + Duration::from_secs(10);
    let text = loop {
        let text = client.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
        if rebound_live::metrics::sample(&text, "rebound_concurrency") == Some(1.0) {
            break text;
        }
        assert!(Instant::now() < deadline, "the request never reached the server: {text}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // Held past S5's 100 ms delay: a server that ignored the pause would have answered.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!pending.is_finished(), "a paused server answered");
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_paused"), Some(1.0));
    assert_eq!(admin(&client, &base, "resume").await, 204);
    let r = tokio::time::timeout(Duration::from_secs(10), pending).await.expect("answered after resume");
    assert_eq!(r.unwrap().unwrap().status(), 200);
}

/// Issue 34 §14: any web page could pause a local server with a text/plain POST (204 to a
/// foreign Host and Origin). The admin endpoints take the lab's guard: the server's own Host,
/// no foreign Origin, application/json.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_endpoints_refuse_foreign_hosts_origins_and_content_types() {
    let (base, _stop, _task) = start(None).await;
    let client = reqwest::Client::new();
    let pause = || client.post(format!("{base}/admin/pause"));
    let json = "application/json";
    let refused = [
        (pause().header("content-type", json).header("host", "rebind.example"), 403, "Host rebind.example"),
        (pause().header("content-type", json).header("origin", "https://evil.example"), 403, "Origin"),
        (pause().header("content-type", "text/plain").body("{}"), 415, "application/json"),
        (pause(), 415, "application/json"),
    ];
    for (request, status, named) in refused {
        let r = request.send().await.unwrap();
        assert_eq!(r.status().as_u16(), status);
        assert_eq!(r.headers()["content-type"], json);
        let body: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
        assert!(body["error"].as_str().unwrap().contains(named), "{body}");
    }
    let text = client.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_paused"), Some(0.0), "{text}");
    let own = pause().header("content-type", json).header("origin", base.trim_end_matches('/')).send();
    assert_eq!(own.await.unwrap().status(), 204);
}

#[tokio::test]
async fn refuses_non_loopback_addresses_unless_allowed() {
    let config = ServerConfig {
        listen: "0.0.0.0:0".parse().unwrap(),
        allow_remote: false,
        model: DelayModel::default(),
        rate_limit: None,
    };
    let e = Server::bind(&config).await.unwrap_err();
    assert!(matches!(e, LiveError::RemoteListen(_)), "{e}");
    assert!(e.to_string().contains("--allow-remote"));
    assert!(Server::bind(&ServerConfig { allow_remote: true, ..config }).await.is_ok());
}
