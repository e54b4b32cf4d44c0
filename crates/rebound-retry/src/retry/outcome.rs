//! What an executor returns: the value with its [`Outcome`] report, or a [`RetryError`].

use core::fmt;
use core::time::Duration;

/// How one attempt failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure<E> {
    /// The operation returned this error.
    Error(E),
    /// The attempt did not finish within its timeout (async executor only).
    TimedOut(Duration),
    /// The client's throttle, an open circuit breaker or the pacer stopped the call before its
    /// first attempt: nothing was sent. (When they stop a retry, the error carries the last
    /// attempt's failure instead.)
    Rejected,
}

impl<E> Failure<E> {
    /// The operation's error, if the attempt did not time out.
    pub fn error(&self) -> Option<&E> {
        match self {
            Failure::Error(e) => Some(e),
            Failure::TimedOut(_) | Failure::Rejected => None,
        }
    }
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Error(e) => e.fmt(f),
            Failure::TimedOut(d) => write!(f, "attempt timed out after {d:?}"),
            Failure::Rejected => {
                f.write_str("attempt rejected at the client (throttle or open circuit breaker)")
            }
        }
    }
}

/// Why an executor stopped retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GiveUp {
    /// The retry predicate rejected the error: it is permanent.
    Permanent,
    /// The policy allows no more retries.
    Exhausted,
    /// The next wait would end past the overall deadline (`max_elapsed`).
    Deadline,
    /// The retry budget denied the retry.
    BudgetExhausted,
    /// The client-side throttle rejected the attempt.
    Throttled,
    /// The retry circuit breaker ([`crate::RetryBreaker`]) refused the retry: too many recent
    /// attempts failed. (It never refuses a first attempt.)
    RetryBreakerOpen,
    /// The circuit breaker ([`crate::CircuitBreaker`]) rejected the attempt: it was open, or
    /// half-open with every probe slot taken, and would not admit a probe before the deadline
    /// or the hint ceiling.
    CircuitOpen,
    /// The server's `RateLimit` asked the [pacer](crate::http::Pacer) for a wait before the
    /// next attempt that would end past the overall deadline (`max_elapsed`), so it was not
    /// made: the caller may schedule the work for after `wait`.
    PacingPastDeadline {
        /// The pacing wait the next attempt needed.
        wait: Duration,
        /// The time left before the deadline.
        remaining: Duration,
    },
    /// The server asked for a wait (Retry-After) longer than the configured ceiling.
    HintAboveCeiling {
        /// The wait the server asked for.
        hint: Duration,
        /// The longest wait the executor accepts from a server.
        ceiling: Duration,
    },
}

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GiveUp::Permanent => f.write_str("permanent error"),
            GiveUp::Exhausted => f.write_str("retries exhausted"),
            GiveUp::Deadline => f.write_str("the next wait would pass the deadline"),
            GiveUp::BudgetExhausted => f.write_str("the retry budget is exhausted"),
            GiveUp::Throttled => f.write_str("the client-side throttle rejected the attempt"),
            GiveUp::CircuitOpen => f.write_str("the circuit breaker is open"),
            GiveUp::RetryBreakerOpen => {
                f.write_str("the retry breaker is open: too many recent attempts failed to retry")
            }
            GiveUp::PacingPastDeadline { wait, remaining } => write!(
                f,
                "the server's RateLimit asks to wait {wait:?} before sending, past the deadline ({remaining:?} left)"
            ),
            GiveUp::HintAboveCeiling { hint, ceiling } => {
                write!(f, "server asked to retry after {hint:?}, above the ceiling of {ceiling:?}")
            }
        }
    }
}

/// The final error of a retried operation: the last failure, why retrying stopped, and how many
/// attempts were made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    /// Why the executor stopped.
    pub reason: GiveUp,
    /// The last attempt's failure — the operation's last real error even when a guard (budget,
    /// throttle, circuit breaker, pacer) stopped a retry; [`Failure::Rejected`] only when no
    /// attempt ran.
    pub last: Failure<E>,
    /// Attempts made, the first included (≥ 1).
    pub attempts: u64,
    /// Total time slept between attempts.
    pub slept: Duration,
}

impl<E> RetryError<E> {
    /// The operation's last error, unless the last attempt timed out.
    pub fn into_error(self) -> Option<E> {
        match self.last {
            Failure::Error(e) => Some(e),
            Failure::TimedOut(_) | Failure::Rejected => None,
        }
    }

    /// A reference to the operation's last error, unless the last attempt timed out.
    pub fn error(&self) -> Option<&E> {
        self.last.error()
    }

    /// The operation's last error: `None` when the last attempt timed out, or when no attempt
    /// ran (a throttle or an open breaker rejected the first). The same as
    /// [`into_error`](Self::into_error), under the name `std` uses for unwrapping.
    pub fn into_inner(self) -> Option<E> {
        self.into_error()
    }
}

impl<E: fmt::Display> fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gave up after {} attempt{} ({}): {}",
            self.attempts,
            if self.attempts == 1 { "" } else { "s" },
            self.reason,
            self.last
        )
    }
}

/// Any error type that prints (`&str` and `String` included) makes a `RetryError` a
/// `std::error::Error`, so `?` turns it into a `Box<dyn Error>` or an `anyhow::Error`. Its
/// message already ends with the last error's, so `source()` is `None` (the Rust API
/// guidelines: an error either shows its cause or returns it as its source, not both); the
/// error itself is [`error()`](RetryError::error) / [`into_inner()`](RetryError::into_inner).
impl<E: fmt::Debug + fmt::Display> core::error::Error for RetryError<E> {}

/// A successful result with its report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<T> {
    /// The operation's value.
    pub value: T,
    /// Attempts made, the successful one included (≥ 1).
    pub attempts: u64,
    /// Total time slept between attempts.
    pub slept: Duration,
    /// `None` when the value is a success. `Some(reason)` when it is a value the
    /// [`retry_if_ok`](crate::Retry::retry_if_ok) predicate wanted retried and the retries
    /// stopped (the policy ran out, the deadline, the budget, …): why.
    pub gave_up: Option<GiveUp>,
}

/// What the notify hook sees before each retry.
#[derive(Debug)]
pub struct RetryEvent<'a, E> {
    /// The attempt that failed, counting from 1.
    pub attempt: u64,
    /// How it failed.
    pub failure: &'a Failure<E>,
    /// The wait chosen before the next attempt.
    pub delay: Duration,
    /// The server's hint (Retry-After), if the error carried one.
    pub hint: Option<Duration>,
}
