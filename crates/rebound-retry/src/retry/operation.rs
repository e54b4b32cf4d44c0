//! The operation an executor runs, as a trait: it names the operation's value and error types
//! so that every hook setter can bound its closure on them (`.when(|e| e.kind() == TimedOut)`
//! infers `e: &io::Error`), and it carries the optional predicate on `Ok` values
//! ([`Retry::retry_if_ok`](super::Retry::retry_if_ok)).

use super::{Async, Blocking};

/// An operation a [`Retry`](super::Retry) executor can run: for the blocking executor a closure
/// `FnMut() -> Result<T, E>`, for the async one `FnMut() -> impl Future<Output = Result<T, E>>`.
/// Implemented for those closures and for [`IfOk`]; users never implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an operation this retry executor can run",
    label = "expected a closure returning `Result<T, E>` (blocking) or a future of `Result<T, E>` (async)",
    note = "`retry` takes `|| -> Result<T, E>`; `retry_async` takes `|| async {{ ... }}` whose output is a `Result`"
)]
pub trait Operation<K> {
    /// The value of a successful attempt.
    type Ok;
    /// The error of a failed attempt.
    type Err;
    /// What one attempt returns: `Result<Ok, Err>` (blocking) or a future of it (async).
    type Attempt;

    /// Starts one attempt.
    fn attempt(&mut self) -> Self::Attempt;

    /// Whether a successful attempt's `value` should be retried anyway (`false` unless
    /// [`retry_if_ok`](super::Retry::retry_if_ok) set a predicate).
    #[inline]
    fn retry_value(&mut self, value: &Self::Ok) -> bool {
        let _ = value;
        false
    }
}

impl<F, T, E> Operation<Blocking> for F
where
    F: FnMut() -> Result<T, E>,
{
    type Ok = T;
    type Err = E;
    type Attempt = Result<T, E>;

    #[inline]
    fn attempt(&mut self) -> Result<T, E> {
        self()
    }
}

impl<F, Fut, T, E> Operation<Async> for F
where
    F: FnMut() -> Fut,
    Fut: core::future::Future<Output = Result<T, E>>,
{
    type Ok = T;
    type Err = E;
    type Attempt = Fut;

    #[inline]
    fn attempt(&mut self) -> Fut {
        self()
    }
}

/// An operation whose `Ok` values a predicate may send back for a retry; built by
/// [`Retry::retry_if_ok`](super::Retry::retry_if_ok).
#[derive(Debug, Clone)]
pub struct IfOk<F, Q> {
    op: F,
    retry_value: Q,
}

impl<F, Q> IfOk<F, Q> {
    pub(super) fn new(op: F, retry_value: Q) -> Self {
        IfOk { op, retry_value }
    }
}

impl<K, F, Q> Operation<K> for IfOk<F, Q>
where
    F: Operation<K>,
    Q: FnMut(&F::Ok) -> bool,
{
    type Ok = F::Ok;
    type Err = F::Err;
    type Attempt = F::Attempt;

    #[inline]
    fn attempt(&mut self) -> F::Attempt {
        self.op.attempt()
    }

    #[inline]
    fn retry_value(&mut self, value: &F::Ok) -> bool {
        (self.retry_value)(value)
    }
}
