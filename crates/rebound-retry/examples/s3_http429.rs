//! S3: GET a URL, retrying HTTP 429 up to 5 times with `2^retries * 100 ms` waits (200 ms …
//! 3.2 s) or the server's `Retry-After` when it asks for longer; still 429 after that is the
//! "Too many requests" error. Other statuses are returned as they are.
//!
//! ```sh
//! cargo run -p rebound-retry --example s3_http429 -- http://127.0.0.1:8080/
//! ```

use rebound_retry::http::parse_retry_after;
use rebound_retry::{retry_async, Policy};
use std::time::{Duration, SystemTime};

/// Why a GET failed.
#[derive(Debug)]
enum GetError {
    /// 429, with the server's `Retry-After` if it sent one.
    TooManyRequests(Option<Duration>),
    /// The request did not complete.
    Transport(reqwest::Error),
}

async fn get(client: &reqwest::Client, url: &str) -> Result<reqwest::Response, GetError> {
    let resp = client.get(url).send().await.map_err(GetError::Transport)?;
    if resp.status() != reqwest::StatusCode::TOO_MANY_REQUESTS {
        return Ok(resp);
    }
    let hint = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    Err(GetError::TooManyRequests(hint))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:8080/".into());
    let policy: Policy = "exponential:base=200ms,factor=2,max-retries=5".parse()?;
    let client = reqwest::Client::new();
    let result = retry_async(policy.backoff(), || get(&client, &url))
        .when(|e: &GetError| matches!(e, GetError::TooManyRequests(_)))
        .hint(|e: &GetError| match e {
            GetError::TooManyRequests(hint) => *hint,
            GetError::Transport(_) => None,
        })
        .notify(|ev: &rebound_retry::RetryEvent<'_, GetError>| {
            eprintln!("429 on attempt {}; waiting {:?}", ev.attempt, ev.delay)
        })
        .call()
        .await;
    match result {
        Ok(resp) => println!("{} after retries: {}", resp.status(), resp.text().await?.trim()),
        Err(e) => match e.last.error() {
            Some(GetError::TooManyRequests(_)) => {
                return Err(format!("Too many requests ({} attempts)", e.attempts).into())
            }
            Some(GetError::Transport(t)) => return Err(format!("request failed: {t}").into()),
            None => return Err(format!("{:?}", e.last).into()),
        },
    }
    Ok(())
}
