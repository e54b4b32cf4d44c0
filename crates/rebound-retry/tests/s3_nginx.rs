//! S3 against a real nginx answering 429 with `Retry-After`: a burst of clients all get through,
//! and every wait honours the server's hint.

use rebound_retry::http::parse_retry_after;
use rebound_retry::{retry_async, Policy, RetryEvent};
use rebound_testkit::{Nginx, RateLimit};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug)]
enum GetError {
    TooManyRequests(Option<Duration>),
    Transport(#[allow(dead_code, reason = "shown by Debug when a test fails")] String),
}

async fn get(client: &reqwest::Client, url: &str) -> Result<u16, GetError> {
    let resp = client.get(url).send().await.map_err(|e| GetError::Transport(e.to_string()))?;
    if resp.status() != reqwest::StatusCode::TOO_MANY_REQUESTS {
        return Ok(resp.status().as_u16());
    }
    let hint = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    Err(GetError::TooManyRequests(hint))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_s3_clients_all_complete_honouring_retry_after() {
    let nginx = Nginx::start(RateLimit { per_second: 5, burst: 2, retry_after_s: 1 });
    let url = nginx.url();
    let client = reqwest::Client::new();
    let policy: Policy = "exponential:base=200ms,factor=2,max-retries=5".parse().unwrap();
    // (wait chosen, hint) for every retry of every client.
    type Waits = Vec<(Duration, Option<Duration>)>;
    let waits: Arc<Mutex<Waits>> = Arc::default();
    let started = Instant::now();
    let clients = (0..10).map(|_| {
        let (client, url, waits) = (client.clone(), url.clone(), waits.clone());
        tokio::spawn(async move {
            retry_async(policy.backoff(), || get(&client, &url))
                .when(|e: &GetError| matches!(e, GetError::TooManyRequests(_)))
                .hint(|e: &GetError| match e {
                    GetError::TooManyRequests(h) => *h,
                    GetError::Transport(_) => None,
                })
                .notify(move |ev: &RetryEvent<'_, GetError>| waits.lock().unwrap().push((ev.delay, ev.hint)))
                .call_outcome()
                .await
        })
    });
    let outcomes: Vec<_> = futures_join(clients).await;
    assert!(started.elapsed() < Duration::from_secs(20));
    for o in &outcomes {
        let o = o.as_ref().expect("every client completes within 5 retries");
        assert_eq!(o.value, 200);
    }
    let waits = waits.lock().unwrap();
    assert!(!waits.is_empty(), "a burst of 10 against 5 r/s + burst 2 must be throttled");
    for &(wait, hint) in waits.iter() {
        assert_eq!(hint, Some(Duration::from_secs(1)), "nginx sends Retry-After: 1");
        assert!(wait >= Duration::from_secs(1), "the wait {wait:?} honours Retry-After");
    }
    let statuses = nginx.statuses_at_least(10 + waits.len());
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 10);
    assert_eq!(statuses.iter().filter(|&&s| s == 429).count(), waits.len());
}

#[tokio::test]
async fn a_server_that_keeps_refusing_gives_too_many_requests_after_5_retries() {
    // 1 request per second: after the first, everything is 429 until a second has passed. The
    // five waits add up to 31 ms, so the six attempts fit in that second with a wide margin
    // (a loaded machine included).
    let nginx = Nginx::start(RateLimit { per_second: 1, burst: 0, retry_after_s: 0 });
    let (client, url) = (reqwest::Client::new(), nginx.url());
    assert_eq!(get(&client, &url).await.unwrap(), 200);
    let policy: Policy = "exponential:base=1ms,factor=2,max-retries=5".parse().unwrap();
    let err = retry_async(policy.backoff(), || get(&client, &url))
        .when(|e: &GetError| matches!(e, GetError::TooManyRequests(_)))
        .call()
        .await
        .unwrap_err();
    assert_eq!(err.attempts, 6);
    assert!(matches!(err.last.error(), Some(GetError::TooManyRequests(_))));
}

async fn futures_join<T>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("the client task does not panic"));
    }
    out
}
