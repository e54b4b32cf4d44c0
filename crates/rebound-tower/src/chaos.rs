//! [`ChaosLayer`]: rebound-retry's fault injector ([`rebound_retry::chaos`]) as a tower layer
//! over an HTTP service (a hyper client, an axum router), to put a real stack through the
//! storm the lab simulated.

use http_body_util::{Either, Empty};
use rebound_retry::chaos::{Chaos, Fault};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tower::{Layer, Service};

/// Wraps a service in a [`ChaosService`] injecting `Chaos`'s faults. Put it **under** the
/// [`RetryLayer`](crate::RetryLayer) so that every attempt meets the faults.
#[derive(Debug, Clone)]
pub struct ChaosLayer {
    chaos: Arc<Chaos>,
}

impl ChaosLayer {
    /// Injects `chaos`'s faults (share one `Arc` to share its seed and outage clock).
    pub fn new(chaos: Arc<Chaos>) -> Self {
        ChaosLayer { chaos }
    }
}

impl<S> Layer<S> for ChaosLayer {
    type Service = ChaosService<S>;

    fn layer(&self, inner: S) -> ChaosService<S> {
        ChaosService { inner, chaos: self.chaos.clone() }
    }
}

/// An HTTP service with faults injected: each request waits the drawn latency on tokio's
/// timer, then goes to the inner service or is answered with an empty-bodied error status or
/// `429` (with `Retry-After` when configured). The body is the service's
/// (`Either::Left`) or empty (`Either::Right`); the inner service's errors pass through.
#[derive(Debug, Clone)]
pub struct ChaosService<S> {
    inner: S,
    chaos: Arc<Chaos>,
}

/// The answer a fault gives instead of the service's.
fn answer<B: http_body::Body>(
    status: u16,
    retry_after: Option<Duration>,
) -> http::Response<Either<B, Empty<B::Data>>> {
    let mut res = http::Response::builder().status(status);
    if let Some(d) = retry_after {
        res = res.header(http::header::RETRY_AFTER, d.as_secs());
    }
    res.body(Either::Right(Empty::new())).expect("a valid status (ChaosConfig::validate) and header")
}

impl<S, ReqB, ResB> Service<http::Request<ReqB>> for ChaosService<S>
where
    S: Service<http::Request<ReqB>, Response = http::Response<ResB>> + Clone + Send + 'static,
    S::Future: Send,
    ReqB: Send + 'static,
    ResB: http_body::Body + Send + 'static,
{
    type Response = http::Response<Either<ResB, Empty<ResB::Data>>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<ReqB>) -> Self::Future {
        // The ready service goes with this request; a clone takes its place (tower's pattern).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        match self.chaos.decide(tokio::time::Instant::now().into_std()) {
            Fault::Answer { delay, status, retry_after } => Box::pin(async move {
                tokio::time::sleep(delay).await;
                Ok(answer(status, retry_after))
            }),
            Fault::Pass { delay } => Box::pin(async move {
                tokio::time::sleep(delay).await;
                Ok(inner.call(req).await?.map(Either::Left))
            }),
            _ => Box::pin(async move { Ok(inner.call(req).await?.map(Either::Left)) }),
        }
    }
}
