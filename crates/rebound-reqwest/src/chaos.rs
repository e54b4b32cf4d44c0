//! [`ChaosMiddleware`]: rebound-retry's fault injector ([`rebound_retry::chaos`]) in a
//! reqwest-middleware stack, to put a real client through the storm the lab simulated.

use http::Extensions;
use rebound_retry::chaos::{Chaos, Fault};
use reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};
use std::sync::Arc;
use std::time::Duration;

/// Injects [`Chaos`]'s faults into every request: waits the drawn latency on tokio's timer
/// (paused in tests), then sends the request on, or answers it without sending (an error
/// status, a `429`, with `Retry-After` when configured). A hard-down outage answers the error
/// status at once: reqwest cannot make a connect error, and a 503 is what a load balancer in
/// front of a dead service sends.
///
/// Put it **after** the [`RetryMiddleware`](crate::RetryMiddleware) (`.with(retry).with(chaos)`)
/// so that every attempt meets the faults. The outage window's clock is tokio's.
///
/// ```
/// use rebound_retry::chaos::{Chaos, ChaosConfig};
/// use rebound_reqwest::{ChaosMiddleware, RetryMiddleware};
/// use std::sync::Arc;
///
/// let config = ChaosConfig { error_rate: 0.2, latency: Some("exponential:20ms".parse()?), ..ChaosConfig::default() };
/// let chaos = Arc::new(Chaos::new(config, 7)?);
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(RetryMiddleware::new(rebound_retry::Policy::default()))
///     .with(ChaosMiddleware::new(chaos))
///     .build();
/// # let _ = client; Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ChaosMiddleware {
    chaos: Arc<Chaos>,
}

impl ChaosMiddleware {
    /// Injects `chaos`'s faults (share one `Arc` to share its seed and outage clock).
    pub fn new(chaos: Arc<Chaos>) -> Self {
        ChaosMiddleware { chaos }
    }
}

/// The answer a fault gives instead of the server's.
fn answer(status: u16, retry_after: Option<Duration>) -> Response {
    let mut res = http::Response::builder().status(status);
    if let Some(d) = retry_after {
        res = res.header("retry-after", d.as_secs());
    }
    Response::from(res.body(Vec::<u8>::new()).expect("a valid status (ChaosConfig::validate) and header"))
}

#[async_trait::async_trait]
impl Middleware for ChaosMiddleware {
    async fn handle(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        match self.chaos.decide(tokio::time::Instant::now().into_std()) {
            Fault::Answer { delay, status, retry_after } => {
                tokio::time::sleep(delay).await;
                Ok(answer(status, retry_after))
            }
            Fault::Pass { delay } => {
                tokio::time::sleep(delay).await;
                next.run(req, extensions).await
            }
            _ => next.run(req, extensions).await,
        }
    }
}
