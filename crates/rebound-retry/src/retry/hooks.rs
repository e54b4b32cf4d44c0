//! The executor's hooks as traits, so that defaults cost nothing and closures fit.

use super::outcome::RetryEvent;
use crate::budget::RetryCause;
use core::time::Duration;

/// Decides whether an error is transient (retry) or permanent (return at once).
/// Implemented by closures `FnMut(&E) -> bool`.
pub trait Predicate<E> {
    /// `true` to retry after `error`.
    fn test(&mut self, error: &E) -> bool;

    /// For an error [`test`](Predicate::test) rejected: whether it still counts as a failed
    /// attempt for the retry budget and the client-side throttle. `false` by default (and for
    /// closures): a permanent error such as a malformed request says nothing about the
    /// server's health. gRPC A6 counts a pushback that says not to retry, whatever the status
    /// ([`crate::budget::grpc_retry_on`]).
    fn counts_as_failure(&mut self, error: &E) -> bool {
        let _ = error;
        false
    }
}

/// Retries every error (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysRetry;

impl<E> Predicate<E> for AlwaysRetry {
    #[inline]
    fn test(&mut self, _: &E) -> bool {
        true
    }
}

impl<E, F: FnMut(&E) -> bool> Predicate<E> for F {
    #[inline]
    fn test(&mut self, error: &E) -> bool {
        self(error)
    }
}

/// Reads a server's wait hint (Retry-After) from an error. Implemented by closures
/// `FnMut(&E) -> Option<Duration>`.
pub trait HintFn<E> {
    /// The wait the server asked for, if any.
    fn hint(&mut self, error: &E) -> Option<Duration>;
}

/// Reads no hint (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHint;

impl<E> HintFn<E> for NoHint {
    #[inline]
    fn hint(&mut self, _: &E) -> Option<Duration> {
        None
    }
}

impl<E, F: FnMut(&E) -> Option<Duration>> HintFn<E> for F {
    #[inline]
    fn hint(&mut self, error: &E) -> Option<Duration> {
        self(error)
    }
}

/// Hears about each retry before its wait. Implemented by closures `FnMut(&RetryEvent<E>)`.
pub trait Notify<E> {
    /// Called before the wait that precedes a retry.
    fn notify(&mut self, event: &RetryEvent<'_, E>);
}

/// Hears nothing (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotify;

impl<E> Notify<E> for NoNotify {
    #[inline]
    fn notify(&mut self, _: &RetryEvent<'_, E>) {}
}

impl<E, F: FnMut(&RetryEvent<'_, E>)> Notify<E> for F {
    #[inline]
    fn notify(&mut self, event: &RetryEvent<'_, E>) {
        self(event)
    }
}

/// Classifies a retryable error for the retry budget: a [`RetryCause::Throttling`] (the server
/// throttled the call) or a [`RetryCause::Error`] (any other failure). Implemented by closures
/// `FnMut(&E) -> RetryCause`; [`crate::http::classify_status`] and [`crate::http::classify_aws`]
/// are ready-made rules.
pub trait Classify<E> {
    /// What kind of failure `error` is.
    fn cause(&mut self, error: &E) -> RetryCause;
}

/// Classifies every error as [`RetryCause::Error`] (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoClassify;

impl<E> Classify<E> for NoClassify {
    #[inline]
    fn cause(&mut self, _: &E) -> RetryCause {
        RetryCause::Error
    }
}

impl<E, F: FnMut(&E) -> RetryCause> Classify<E> for F {
    #[inline]
    fn cause(&mut self, error: &E) -> RetryCause {
        self(error)
    }
}
