//! Which failures a caller's policy may retry (`retry_on`): some clients retry only timeouts
//! (an error answer is final: the request reached the server, which refused it), others only
//! errors (a timeout may have done the work: retrying it is not safe).

use rebound_retry::budget::RetryCause;
use serde::{Deserialize, Serialize};

/// Which failures a caller retries: `"all"` (default), `"errors"` or `"timeouts"`. A failure
/// it does not retry ends the request as a give-up; the policy's budget, throttle and breaker
/// still hear of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RetryOn {
    /// Errors (answers, refusals, rejections by the caller's own throttle or breaker) and
    /// timeouts.
    #[default]
    All,
    /// Errors only: a timed-out attempt is not retried.
    Errors,
    /// Timeouts only: an error is not retried.
    Timeouts,
}

impl RetryOn {
    /// Whether a failure of this cause may be retried.
    #[inline]
    pub fn allows(self, cause: RetryCause) -> bool {
        match self {
            RetryOn::All => true,
            RetryOn::Errors => cause != RetryCause::Timeout,
            RetryOn::Timeouts => cause == RetryCause::Timeout,
        }
    }

    pub(crate) fn is_all(&self) -> bool {
        *self == RetryOn::All
    }
}
