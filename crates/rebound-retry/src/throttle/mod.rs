//! Client-side throttles: a client that limits its own requests when the server is refusing.
//!
//! Why: retry budgets cap the *retries*; under a long overload even first attempts are too
//! many. A throttle watches how many requests the server accepts and holds back the rest at the
//! client, where refusing costs nothing — Google's adaptive throttling (SRE book, "Handling
//! Overload") rejects locally with a probability that grows as accepts fall behind requests;
//! the AWS SDKs' adaptive mode paces sends with a token bucket whose rate follows CUBIC.
//!
//! Every request asks [`Throttle::admit`] first and reports its response to
//! [`Throttle::on_response`]. Every method takes the current instant, so that the simulator can
//! drive throttles with virtual time.
//!
//! ```
//! use rebound_retry::throttle::{Admission, SreThrottle, Throttle};
//! use std::time::Instant;
//!
//! let throttle = SreThrottle::new_seeded(2.0, 7)?;
//! let now = Instant::now();
//! // The server accepts nothing: after a while most requests are rejected at the client.
//! let mut rejected = 0;
//! for _ in 0..1000 {
//!     if throttle.admit(now) == Admission::Reject {
//!         rejected += 1;
//!     } else {
//!         throttle.on_response(now, true);
//!     }
//! }
//! assert!(rejected > 900);
//! # Ok::<(), rebound_retry::ConfigError>(())
//! ```

mod cubic;
mod spec;
mod sre;

pub use cubic::CubicThrottle;
pub use spec::ThrottleSpec;
pub use sre::SreThrottle;

use crate::time::Instant;
use core::fmt::Debug;
use core::time::Duration;

/// What a throttle says about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Send it now.
    Send,
    /// Send it after this long: the throttle has reserved the send (a rate limiter's pacing).
    Wait(Duration),
    /// Do not send it: fail it at the client.
    Reject,
}

/// A client-side throttle shared by every request of a client (`Send + Sync`, in an `Arc`).
pub trait Throttle: Send + Sync + Debug {
    /// Whether a request may go now.
    fn admit(&self, now: Instant) -> Admission;

    /// A sent request got its answer: `overloaded` when the server refused it or it timed out
    /// (429, 503, a timeout), `false` when the server accepted it.
    fn on_response(&self, now: Instant, overloaded: bool);
}
