//! Which results to retry: a predicate over the request and the service's `Result`.
//!
//! A tower service fails in two ways: it returns `Err` (a transport error, a timeout), or it
//! returns `Ok` with a response that says "try again" (HTTP 503). The predicate sees both, and
//! the request too, so that it can refuse to retry a non-idempotent one.

use rebound_retry::budget::RetryCause;
use rebound_retry::http::RetryReport;

/// Decides whether one attempt's result is worth a retry. Implemented by closures
/// `FnMut(&Req, &Result<Res, E>) -> bool`.
pub trait RetryPredicate<Req, Res, E> {
    /// `true` to retry after `result`, the outcome of sending `req`.
    fn should_retry(&mut self, req: &Req, result: &Result<Res, E>) -> bool;

    /// The wait the server asked for in `result` (e.g. `Retry-After`), if any: the retry waits
    /// at least this long, and a hint above the policy's hint ceiling ends the retries. None by
    /// default; [`HttpStatuses`](crate::HttpStatuses) reads every header
    /// `rebound_retry::http::ServerSignals` knows.
    fn wait_hint(&mut self, result: &Result<Res, E>) -> Option<std::time::Duration> {
        let _ = result;
        None
    }

    /// What the retry budget charges for a retry after `result` (called only for results
    /// [`should_retry`](Self::should_retry) accepted): [`RetryCause::Error`] by default;
    /// [`HttpStatuses`](crate::HttpStatuses) makes a 429 a [`RetryCause::Throttling`], which the
    /// 2026 AWS retry quota charges 5 instead of 14.
    fn cause(&mut self, result: &Result<Res, E>) -> RetryCause {
        let _ = result;
        RetryCause::Error
    }

    /// Called once per request when its retries end, with the result the service will return
    /// and a [`RetryReport`]: the attempts, and (`gave_up`) why a result this predicate wanted
    /// retried is returned anyway (the policy ran out, the deadline, the budget, a hint above
    /// the ceiling). Does nothing by default; [`HttpStatuses`](crate::HttpStatuses) puts the
    /// report in the response's extensions.
    fn finished(&mut self, result: &mut Result<Res, E>, report: RetryReport) {
        let _ = (result, report);
    }
}

/// Retries every `Err` and no `Ok` (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct RetryErrors;

impl<Req, Res, E> RetryPredicate<Req, Res, E> for RetryErrors {
    fn should_retry(&mut self, _: &Req, result: &Result<Res, E>) -> bool {
        result.is_err()
    }
}

impl<Req, Res, E, F> RetryPredicate<Req, Res, E> for F
where
    F: FnMut(&Req, &Result<Res, E>) -> bool,
{
    fn should_retry(&mut self, req: &Req, result: &Result<Res, E>) -> bool {
        self(req, result)
    }
}

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use self::http_statuses::HttpStatuses;

#[cfg(feature = "http")]
mod http_statuses {
    use super::RetryPredicate;
    use rebound_retry::budget::RetryCause;
    use rebound_retry::http::{classify_status, is_idempotent_method, RetryableStatuses};
    use std::time::{Duration, SystemTime};

    /// The HTTP predicate: retries transport errors (`Err`) and responses whose status is in
    /// a [`RetryableStatuses`] set, for idempotent methods only (RFC 9110 §9.2.2: GET, HEAD,
    /// OPTIONS, TRACE, PUT, DELETE) unless [`retry_non_idempotent`](Self::retry_non_idempotent)
    /// opts in. It reads the server's wait hint (`Retry-After`, `RateLimit`, …) from the
    /// response, which the retry then waits at least.
    ///
    /// # Default
    /// [`RetryableStatuses::default()`] (408, 429, 500, 502, 503, 504), idempotent methods only.
    ///
    /// ```
    /// use rebound_tower::{HttpStatuses, RetryPredicate};
    ///
    /// let mut p = HttpStatuses::default();
    /// let get = http::Request::get("/").body(()).unwrap();
    /// let post = http::Request::post("/").body(()).unwrap();
    /// let busy: Result<_, ()> = Ok(http::Response::builder().status(503).body(()).unwrap());
    /// assert!(p.should_retry(&get, &busy));
    /// assert!(!p.should_retry(&post, &busy));
    /// assert!(HttpStatuses::default().retry_non_idempotent(true).should_retry(&post, &busy));
    /// ```
    #[derive(Debug, Clone, Copy, Default)]
    pub struct HttpStatuses {
        statuses: RetryableStatuses,
        non_idempotent: bool,
    }

    impl HttpStatuses {
        /// Retries the statuses in `statuses` (and transport errors).
        pub const fn new(statuses: RetryableStatuses) -> Self {
            HttpStatuses { statuses, non_idempotent: false }
        }

        /// Whether POST, PATCH and other non-idempotent requests are retried too (default
        /// `false`: a retried POST may repeat work the server did).
        pub const fn retry_non_idempotent(mut self, yes: bool) -> Self {
            self.non_idempotent = yes;
            self
        }
    }

    impl<ReqB, ResB, E> RetryPredicate<http::Request<ReqB>, http::Response<ResB>, E> for HttpStatuses {
        fn should_retry(
            &mut self,
            req: &http::Request<ReqB>,
            result: &Result<http::Response<ResB>, E>,
        ) -> bool {
            if !self.non_idempotent && !is_idempotent_method(req.method().as_str()) {
                return false;
            }
            match result {
                Ok(res) => self.statuses.contains(res.status().as_u16()),
                Err(_) => true,
            }
        }

        /// Every wait hint of the response's headers, by
        /// [`ServerSignals`](rebound_retry::http::ServerSignals)' precedence (`Retry-After`
        /// first).
        fn wait_hint(&mut self, result: &Result<http::Response<ResB>, E>) -> Option<Duration> {
            let res = result.as_ref().ok()?;
            crate::pace::signals(res.headers(), SystemTime::now()).wait_hint()
        }

        /// A 429 response is throttling ([`classify_status`]); other responses and transport
        /// errors are errors.
        fn cause(&mut self, result: &Result<http::Response<ResB>, E>) -> RetryCause {
            result.as_ref().map_or(RetryCause::Error, |res| classify_status(res.status().as_u16()))
        }

        /// Puts the [`RetryReport`](rebound_retry::http::RetryReport) in the response's
        /// extensions (`res.extensions().get::<RetryReport>()`); a transport error carries none.
        fn finished(
            &mut self,
            result: &mut Result<http::Response<ResB>, E>,
            report: rebound_retry::http::RetryReport,
        ) {
            if let Ok(res) = result {
                res.extensions_mut().insert(report);
            }
        }
    }

    /// Copies an `http::Request` whose body is `Clone` (method, URI, version, headers, body;
    /// extensions are not cloneable and are left out). Pass it to
    /// [`ReboundPolicy::with_cloner`](crate::ReboundPolicy::with_cloner).
    pub fn clone_http_request<B: Clone>(req: &http::Request<B>) -> Option<http::Request<B>> {
        let mut copy = http::Request::new(req.body().clone());
        *copy.method_mut() = req.method().clone();
        *copy.uri_mut() = req.uri().clone();
        *copy.version_mut() = req.version();
        *copy.headers_mut() = req.headers().clone();
        Some(copy)
    }
}

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use self::http_statuses::clone_http_request;
