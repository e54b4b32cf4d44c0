//! S3: GET a URL; while the answer is `429 Too Many Requests`, retry up to 5 times, waiting
//! `2^n * 100 ms` (200, 400, 800, 1600, 3200 ms) or the server's `Retry-After` if longer; then
//! fail with "Too many requests". Other statuses return as they are.
//!
//! Run it against a URL of yours:
//!
//! ```text
//! cargo run -p rebound --example s3_http429 -- http://127.0.0.1:8080/
//! ```
//!
//! or with no argument: it starts a local nginx rate-limited to 5 requests/s (burst 2, answering
//! 429 with `Retry-After: 1`) and sends a burst of 8 concurrent clients at it.
//!
//! The retry loop is the library's async executor; this file only says what a retryable answer
//! is (the status, via [`RetryableStatuses`]) and where the server's hint is (the header, via
//! [`parse_retry_after`]).

use rebound::http::{parse_retry_after, RetryableStatuses};
use rebound::{retry_async, AsyncSleeper, Outcome, Policy, RetryError, RetryEvent};
use std::fmt;
use std::time::{Duration, SystemTime};

/// S3's schedule: `2^n * 100 ms` for retries n = 1..=5.
pub const S3_POLICY: &str = "exponential:base=200ms,factor=2,max-retries=5";

/// S3 retries 429 and nothing else.
pub const S3_RETRYABLE: RetryableStatuses = RetryableStatuses::empty().with(429);

/// A successful (non-429) answer.
#[derive(Debug)]
pub struct Page {
    /// The HTTP status, anything but 429.
    pub status: u16,
    /// The body.
    pub body: String,
}

/// Why one GET failed.
#[derive(Debug)]
pub enum FetchError {
    /// The server answered 429, possibly with a `Retry-After` wait.
    TooManyRequests {
        /// The parsed `Retry-After` header, if any.
        retry_after: Option<Duration>,
    },
    /// The request itself failed (connection refused, ...): not retried, as in S3.
    Http(reqwest::Error),
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::TooManyRequests { .. } => f.write_str("Too many requests"),
            FetchError::Http(e) => write!(f, "request failed: {e}"),
        }
    }
}

/// One attempt: GET `url`; a retryable status becomes [`FetchError::TooManyRequests`].
async fn get_once(client: &reqwest::Client, url: &str) -> Result<Page, FetchError> {
    let response = client.get(url).send().await.map_err(FetchError::Http)?;
    let status = response.status().as_u16();
    if S3_RETRYABLE.contains(status) {
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        return Err(FetchError::TooManyRequests { retry_after });
    }
    let body = response.text().await.map_err(FetchError::Http)?;
    Ok(Page { status, body })
}

/// GETs `url` with S3's retries, waiting with `sleeper` (tokio's timer in production) and
/// calling `on_retry` before each wait.
///
/// # Errors
/// After the 6th 429 in a row, a [`RetryError`] whose last error displays "Too many requests";
/// a failed request at once.
pub async fn get_with_retries<S: AsyncSleeper>(
    client: &reqwest::Client,
    url: &str,
    sleeper: S,
    on_retry: impl FnMut(&RetryEvent<'_, FetchError>),
) -> Result<Outcome<Page>, RetryError<FetchError>> {
    let policy: Policy = S3_POLICY.parse().expect("S3's spec is valid");
    retry_async(policy.backoff(), || get_once(client, url))
        .when(|e: &FetchError| matches!(e, FetchError::TooManyRequests { .. }))
        .hint(|e: &FetchError| match e {
            FetchError::TooManyRequests { retry_after } => *retry_after,
            FetchError::Http(_) => None,
        })
        .sleeper(sleeper)
        .notify(on_retry)
        .call_outcome()
        .await
}

/// Sends `clients` concurrent requests to `url` and prints what each one went through.
async fn burst(url: &str, clients: usize) {
    let client = reqwest::Client::new();
    let mut tasks = tokio::task::JoinSet::new();
    for id in 1..=clients {
        let (client, url) = (client.clone(), url.to_string());
        tasks.spawn(async move {
            let log = |e: &RetryEvent<'_, FetchError>| {
                let hint = e.hint.map(|h| format!("{h:?}")).unwrap_or_else(|| "none".into());
                println!(
                    "client {id}: attempt {} got 429 (Retry-After {hint}); waiting {:?}",
                    e.attempt, e.delay
                );
            };
            match get_with_retries(&client, &url, rebound::TokioSleeper, log).await {
                Ok(o) => println!(
                    "client {id}: {} after {} attempts, {:?} waited",
                    o.value.status, o.attempts, o.slept
                ),
                Err(e) => println!("client {id}: {e}"),
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.expect("a client task panicked");
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    match std::env::args().nth(1) {
        Some(url) => burst(&url, 1).await,
        None => {
            let nginx = rebound_testkit::Nginx::start(rebound_testkit::NginxConfig::default());
            println!("nginx on {} (5 requests/s, burst 2, Retry-After: 1)", nginx.url());
            burst(&nginx.url(), 8).await;
        }
    }
}
