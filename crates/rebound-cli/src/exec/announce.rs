//! The waits `exec` announces: the policy's delay is known when an attempt fails (the executor's
//! `notify`), but a client-side throttle (`throttle=`) may hold the next attempt for longer when
//! it comes to send it. The throttle is wrapped so that such a wait is announced too, and the
//! user sees every wait rebound makes (`retrying in 10ms`, then `throttle: ... a further 2s`).

use rebound_retry::throttle::{Admission, Throttle};
use std::sync::Arc;
use std::time::Instant;

/// A throttle that announces the waits it imposes on stderr.
#[derive(Debug)]
pub struct Announced(pub Arc<dyn Throttle>);

impl Throttle for Announced {
    fn admit(&self, now: Instant) -> Admission {
        let admission = self.0.admit(now);
        match admission {
            Admission::Wait(d) => crate::output::note!(
                "rebound: the client-side throttle holds the next attempt for a further {}",
                super::millis(d)
            ),
            Admission::Reject => {
                crate::output::note!("rebound: the client-side throttle rejects the next attempt")
            }
            Admission::Send => {}
        }
        admission
    }

    fn on_response(&self, now: Instant, overloaded: bool) {
        self.0.on_response(now, overloaded);
    }
}
