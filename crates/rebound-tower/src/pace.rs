//! [`PaceLayer`]: paces every request by the server's `RateLimit` with a shared
//! [`Pacer`](rebound_retry::http::Pacer).
//!
//! Put it *inside* the [`RetryLayer`](crate::RetryLayer) so that every attempt, retries
//! included, waits for its slot:
//!
//! ```
//! use rebound_retry::http::Pacer;
//! use rebound_retry::Policy;
//! use rebound_tower::{clone_http_request, HttpStatuses, PaceLayer, ReboundPolicy, RetryLayer};
//! use std::sync::Arc;
//!
//! let pacer = Arc::new(Pacer::new());
//! let policy = ReboundPolicy::with_cloner(Policy::default(), clone_http_request::<String>)
//!     .when(HttpStatuses::default());
//! let _service = tower::ServiceBuilder::new()
//!     .layer(RetryLayer::new(policy))
//!     .layer(PaceLayer::new(pacer))
//!     .service(tower::service_fn(|_req: http::Request<String>| async {
//!         Ok::<_, std::io::Error>(http::Response::new(String::new()))
//!     }));
//! ```

use rebound_retry::http::{Pacer, ServerSignals};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::SystemTime;
use tower::{Layer, Service};

/// Every wait signal of a response's headers (values that are not visible ASCII are left out).
pub(crate) fn signals(headers: &http::HeaderMap, now: SystemTime) -> ServerSignals {
    let lines = headers.iter().filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)));
    ServerSignals::from_header_lines(lines, now)
}

/// `host:port` of a request URI (port 80 or 443 by scheme when absent), the pacer's key.
fn authority<B>(req: &http::Request<B>) -> String {
    let uri = req.uri();
    let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
    format!("{}:{port}", uri.host().unwrap_or_default())
}

/// A `tower::Layer` that paces requests with a shared [`Pacer`]: each request waits for its
/// slot to the URI's host and port, and each response's `RateLimit` feeds the pacer. A wait
/// above the pacer's ceiling is not waited (the request goes; the server's answer decides).
#[derive(Debug, Clone)]
pub struct PaceLayer {
    pacer: Arc<Pacer>,
}

impl PaceLayer {
    /// Paces with `pacer` (share one between the clients of a process).
    pub fn new(pacer: Arc<Pacer>) -> Self {
        PaceLayer { pacer }
    }
}

impl<S> Layer<S> for PaceLayer {
    type Service = Paced<S>;

    fn layer(&self, inner: S) -> Paced<S> {
        Paced { inner, pacer: self.pacer.clone() }
    }
}

/// The service [`PaceLayer`] builds.
#[derive(Debug, Clone)]
pub struct Paced<S> {
    inner: S,
    pacer: Arc<Pacer>,
}

impl<S, ReqB, ResB> Service<http::Request<ReqB>> for Paced<S>
where
    S: Service<http::Request<ReqB>, Response = http::Response<ResB>> + Clone + Send + 'static,
    S::Future: Send,
    ReqB: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<ReqB>) -> Self::Future {
        // The ready service goes with this call; a fresh clone waits for the next poll_ready.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let pacer = self.pacer.clone();
        Box::pin(async move {
            let host = authority(&req);
            let _ = pacer.until_ready(&host).await;
            let res = inner.call(req).await?;
            pacer.observe(
                &host,
                &signals(res.headers(), SystemTime::now()),
                tokio::time::Instant::now().into_std(),
            );
            Ok(res)
        })
    }
}
