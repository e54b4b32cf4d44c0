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
    assert!(took >= Duration::from_millis(100) && took < Duration::from_millis(400), "{took:?}");
    let text = client.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_concurrency"), Some(0.0));
    assert!(text.contains("rebound_requests_total{code=\"200\"} 1\n"), "{text}");
    assert!(text.contains("rebound_request_duration_seconds_count 1\n"), "{text}");
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(6), task).await.expect("shuts down").unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_bucket_answers_429_with_retry_after() {
    let (base, _stop, _task) = start(Some(2)).await;
    let client = reqwest::Client::new();
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let r = client.get(format!("{base}/api")).send().await.unwrap();
        statuses.push((
            r.status().as_u16(),
            r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string()),
        ));
    }
    assert_eq!(statuses[..2], [(200, None), (200, None)]);
    assert_eq!(statuses[2], (429, Some("1".to_string())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_requests_wait_until_resumed_and_count_meanwhile() {
    let (base, _stop, _task) = start(None).await;
    let client = reqwest::Client::new();
    assert_eq!(client.post(format!("{base}/admin/pause")).send().await.unwrap().status(), 204);
    let pending = tokio::spawn(client.get(format!("{base}/api")).send());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!pending.is_finished(), "a paused server answered");
    let text = client.get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap();
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_concurrency"), Some(1.0));
    assert_eq!(rebound_live::metrics::sample(&text, "rebound_paused"), Some(1.0));
    assert_eq!(client.post(format!("{base}/admin/resume")).send().await.unwrap().status(), 204);
    let r = tokio::time::timeout(Duration::from_secs(2), pending).await.expect("answered after resume");
    assert_eq!(r.unwrap().unwrap().status(), 200);
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
