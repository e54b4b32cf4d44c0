//! [`RetryLayer`]: the policy as a `tower::Layer`.

use crate::policy::ReboundPolicy;
use tower::retry::Retry;
use tower::Layer;

/// Wraps a service in `tower::retry::Retry` driven by a [`ReboundPolicy`].
///
/// ```
/// use rebound_retry::Policy;
/// use rebound_tower::{ReboundPolicy, RetryLayer};
/// use std::time::Duration;
///
/// let policy = Policy::exponential(Duration::from_millis(50), 2.0).max_retries(3).build()?;
/// let layer: RetryLayer<String, _> = RetryLayer::new(ReboundPolicy::new(policy));
/// let _service = tower::ServiceBuilder::new()
///     .layer(layer)
///     .service(tower::service_fn(|req: String| async move { Ok::<_, std::io::Error>(req) }));
/// # Ok::<(), rebound_retry::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RetryLayer<Req, P> {
    policy: ReboundPolicy<Req, P>,
}

impl<Req, P> RetryLayer<Req, P> {
    /// A layer retrying as `policy` says.
    pub fn new(policy: ReboundPolicy<Req, P>) -> Self {
        RetryLayer { policy }
    }
}

impl<Req, P: Clone, S> Layer<S> for RetryLayer<Req, P> {
    type Service = Retry<ReboundPolicy<Req, P>, S>;

    fn layer(&self, service: S) -> Self::Service {
        Retry::new(self.policy.clone(), service)
    }
}

impl<Req, P> From<ReboundPolicy<Req, P>> for RetryLayer<Req, P> {
    fn from(policy: ReboundPolicy<Req, P>) -> Self {
        RetryLayer::new(policy)
    }
}
