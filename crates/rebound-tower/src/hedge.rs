//! [`HedgeLayer`]: hedged requests in a tower stack, run by `rebound_retry::hedge_async` (gRPC
//! A6's hedging policy): when a call is slow, the layer sends a copy of the request through a
//! clone of the service, and the first `Ok` answer wins; the other calls are dropped
//! (cancelled). An `Err` is fatal (A6's default) unless [`non_fatal`](HedgeLayer::non_fatal)
//! says otherwise. Requests that cannot be cloned are sent once. For HTTP, a 5xx response is an
//! `Ok` answer and wins the race like any other.

use rebound_retry::budget::RetryBudget;
use rebound_retry::{hedge_async, HedgePolicy, RetryError};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// Hedged requests in a tower stack, run by `rebound_retry::hedge_async` (gRPC
/// A6's hedging policy): when a call is slow, the layer sends a copy of the request through a
/// clone of the service, and the first `Ok` answer wins; the other calls are dropped
/// (cancelled). An `Err` is fatal (A6's default) unless [`non_fatal`](HedgeLayer::non_fatal)
/// says otherwise. Requests that cannot be cloned are sent once. For HTTP, a 5xx response is an
/// `Ok` answer and wins the race like any other.
#[derive(Debug, Clone)]
pub struct HedgeLayer<Req> {
    policy: HedgePolicy,
    clone: fn(&Req) -> Option<Req>,
    non_fatal: Option<fn(&RetryErrorKind) -> bool>,
    budget: Option<Arc<dyn RetryBudget>>,
}

/// What a [`HedgeLayer`]'s non-fatal predicate sees: whether the error came from
/// `poll_ready` (the service could not take the copy) or from the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryErrorKind {
    /// The service's `poll_ready` failed.
    NotReady,
    /// The call failed.
    Call,
}

impl<Req> HedgeLayer<Req> {
    /// Hedges as `policy` says, copying requests with `clone` (`None`: send once).
    pub fn new(policy: HedgePolicy, clone: fn(&Req) -> Option<Req>) -> Self {
        HedgeLayer { policy, clone, non_fatal: None, budget: None }
    }

    /// Sets which errors are non-fatal (the next copy goes out at once); by kind of failure.
    pub fn non_fatal(mut self, non_fatal: fn(&RetryErrorKind) -> bool) -> Self {
        self.non_fatal = Some(non_fatal);
        self
    }

    /// Charges each hedge to a shared retry budget (A6 throttles hedges like retries).
    pub fn budget(mut self, budget: Arc<dyn RetryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }
}

impl<Req, S> Layer<S> for HedgeLayer<Req> {
    type Service = HedgeService<Req, S>;

    fn layer(&self, inner: S) -> Self::Service {
        HedgeService {
            inner,
            policy: self.policy.clone(),
            clone: self.clone,
            non_fatal: self.non_fatal,
            budget: self.budget.clone(),
        }
    }
}

/// A hedging service, made by [`HedgeLayer`].
#[derive(Debug, Clone)]
pub struct HedgeService<Req, S> {
    inner: S,
    policy: HedgePolicy,
    clone: fn(&Req) -> Option<Req>,
    non_fatal: Option<fn(&RetryErrorKind) -> bool>,
    budget: Option<Arc<dyn RetryBudget>>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<Req, S> Service<Req> for HedgeService<Req, S>
where
    Req: Send + 'static,
    S: Service<Req> + Clone + Send + 'static,
    S::Future: Send,
    S::Response: Send,
    S::Error: Send,
{
    type Response = S::Response;
    type Error = RetryError<S::Error>;
    type Future = BoxFuture<Result<S::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(|e| RetryError {
            reason: rebound_retry::GiveUp::Permanent,
            last: rebound_retry::Failure::Error(e),
            attempts: 0,
            slept: std::time::Duration::ZERO,
        })
    }

    fn call(&mut self, req: Req) -> Self::Future {
        let clone = self.clone;
        let svc = self.inner.clone();
        let mut first = Some(std::mem::replace(&mut self.inner, svc.clone()));
        let (policy, non_fatal, budget) = (self.policy.clone(), self.non_fatal, self.budget.clone());
        Box::pin(async move {
            let Some(_) = clone(&req) else {
                let mut svc = first.take().expect("first");
                let call = svc.call(req);
                return call.await.map_err(|e| permanent(e, 1));
            };
            let req = Arc::new(std::sync::Mutex::new(req));
            let hedged = hedge_async(move || {
                // The first copy goes to the service that was made ready; hedges to clones.
                let ready = first.take();
                let copy = clone(&req.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
                let mut svc = svc.clone();
                async move {
                    let copy = copy.expect("a request that cloned once clones again");
                    match ready {
                        Some(mut s) => s.call(copy).await.map_err(|e| (RetryErrorKind::Call, e)),
                        None => {
                            poll_fn(|cx| svc.poll_ready(cx))
                                .await
                                .map_err(|e| (RetryErrorKind::NotReady, e))?;
                            svc.call(copy).await.map_err(|e| (RetryErrorKind::Call, e))
                        }
                    }
                }
            })
            .policy(policy)
            .non_fatal(move |e: &(RetryErrorKind, S::Error)| non_fatal.is_some_and(|f| f(&e.0)));
            let hedged = match budget {
                Some(b) => hedged.budget(b).call().await,
                None => hedged.call().await,
            };
            hedged.map_err(|e| RetryError {
                reason: e.reason,
                last: match e.last {
                    rebound_retry::Failure::Error((_, e)) => rebound_retry::Failure::Error(e),
                    rebound_retry::Failure::TimedOut(d) => rebound_retry::Failure::TimedOut(d),
                    _ => rebound_retry::Failure::Rejected,
                },
                attempts: e.attempts,
                slept: e.slept,
            })
        })
    }
}

fn permanent<E>(e: E, attempts: u64) -> RetryError<E> {
    RetryError {
        reason: rebound_retry::GiveUp::Permanent,
        last: rebound_retry::Failure::Error(e),
        attempts,
        slept: std::time::Duration::ZERO,
    }
}
