//! [`BreakerLayer`]: a shared [`CircuitBreaker`] in front of a service. An open breaker answers
//! [`BreakerError::Open`] at once, without calling the service; every call's outcome is
//! reported to the breaker, classified by a [`Classify`] (by default, `Err` is a failure).

use rebound_retry::{BreakerOpen, BreakerPermit, CircuitBreaker, TokioSleeper};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// Decides whether a call's result counts as a failure for the breaker. Implemented by
/// closures `Fn(&Result<R, E>) -> bool` (`true` = failure).
pub trait Classify<R, E> {
    /// `true` if `result` is a failure of the dependency.
    fn is_failure(&self, result: &Result<R, E>) -> bool;
}

/// Counts every `Err` as a failure and every `Ok` as a success (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorsFail;

impl<R, E> Classify<R, E> for ErrorsFail {
    fn is_failure(&self, result: &Result<R, E>) -> bool {
        result.is_err()
    }
}

impl<R, E, F: Fn(&Result<R, E>) -> bool> Classify<R, E> for F {
    fn is_failure(&self, result: &Result<R, E>) -> bool {
        self(result)
    }
}

/// What a service behind a breaker fails with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakerError<E> {
    /// The breaker is open: the call was not made.
    Open(BreakerOpen),
    /// The service's own error.
    Inner(E),
}

impl<E: fmt::Display> fmt::Display for BreakerError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakerError::Open(o) => o.fmt(f),
            BreakerError::Inner(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for BreakerError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BreakerError::Open(o) => Some(o),
            BreakerError::Inner(e) => Some(e),
        }
    }
}

/// Puts a shared circuit breaker in front of a service. An open breaker answers
/// [`BreakerError::Open`] at once, without calling the service; every call's outcome is reported
/// to the breaker, classified by a [`Classify`] (by default, `Err` is a failure). The breaker
/// reads tokio's clock.
#[derive(Debug, Clone)]
pub struct BreakerLayer<C = ErrorsFail> {
    breaker: Arc<CircuitBreaker>,
    classify: C,
}

impl BreakerLayer {
    /// A layer over `breaker`, counting `Err` results as failures.
    pub fn new(breaker: Arc<CircuitBreaker>) -> Self {
        BreakerLayer { breaker, classify: ErrorsFail }
    }
}

impl<C> BreakerLayer<C> {
    /// Sets what counts as a failure (e.g. a 5xx response, which a client returns as `Ok`).
    pub fn classify<C2>(self, classify: C2) -> BreakerLayer<C2> {
        BreakerLayer { breaker: self.breaker, classify }
    }
}

impl<S, C: Clone> Layer<S> for BreakerLayer<C> {
    type Service = BreakerService<S, C>;

    fn layer(&self, inner: S) -> Self::Service {
        BreakerService { inner, breaker: Arc::clone(&self.breaker), classify: self.classify.clone() }
    }
}

/// A service behind a circuit breaker, made by [`BreakerLayer`].
#[derive(Debug, Clone)]
pub struct BreakerService<S, C> {
    inner: S,
    breaker: Arc<CircuitBreaker>,
    classify: C,
}

impl<S, C, Req> Service<Req> for BreakerService<S, C>
where
    S: Service<Req>,
    C: Classify<S::Response, S::Error> + Clone + Unpin,
{
    type Response = S::Response;
    type Error = BreakerError<S::Error>;
    type Future = BreakerFuture<S::Future, C>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(BreakerError::Inner)
    }

    fn call(&mut self, req: Req) -> Self::Future {
        match self.breaker.try_acquire(&TokioSleeper) {
            Err(open) => BreakerFuture { state: State::Rejected(Some(open)) },
            Ok(permit) => BreakerFuture {
                state: State::Running {
                    future: Box::pin(self.inner.call(req)),
                    permit,
                    breaker: Arc::clone(&self.breaker),
                    classify: self.classify.clone(),
                },
            },
        }
    }
}

/// The response future of a [`BreakerService`].
pub struct BreakerFuture<F, C> {
    state: State<F, C>,
}

enum State<F, C> {
    Rejected(Option<BreakerOpen>),
    Running { future: Pin<Box<F>>, permit: BreakerPermit, breaker: Arc<CircuitBreaker>, classify: C },
}

impl<F, C> fmt::Debug for BreakerFuture<F, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BreakerFuture").finish_non_exhaustive()
    }
}

impl<F, C, R, E> Future for BreakerFuture<F, C>
where
    F: Future<Output = Result<R, E>>,
    C: Classify<R, E> + Unpin,
{
    type Output = Result<R, BreakerError<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().state {
            State::Rejected(open) => {
                let open = open.take().expect("a BreakerFuture is not polled after it completed");
                Poll::Ready(Err(BreakerError::Open(open)))
            }
            State::Running { future, permit, breaker, classify } => {
                let result = std::task::ready!(future.as_mut().poll(cx));
                if classify.is_failure(&result) {
                    breaker.on_failure(*permit, &TokioSleeper);
                } else {
                    breaker.on_success(*permit, &TokioSleeper);
                }
                Poll::Ready(result.map_err(BreakerError::Inner))
            }
        }
    }
}
