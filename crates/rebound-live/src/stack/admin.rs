//! The outage switch of a live service: `POST /admin/outage` with a JSON body and
//! `DELETE /admin/outage`, as `LIVE-CONTRACT.md` fixes them.
//!
//! - `{"kind":"hard-down"}`: every arrival is answered 503 at once, and so is every request in
//!   the service (queued or in service) when it begins — the simulator's hard-down, where a
//!   dead service fails what it holds.
//! - `{"kind":"capacity-cut","slowdown":F}`: service times drawn from now on are × F, F in
//!   [1, 1000].
//! - `{"kind":"errors","error_rate":P}`: each request fails with probability P in [0, 1] after
//!   its service time, without its calls (on top of the service's own `error_rate`).
//!
//! `pause` is the experiment's SIGSTOP/SIGCONT; load spikes are the load generator's. An
//! outage replaces the one before; `DELETE` ends it. A bad body is a 400 naming the field and
//! its range. `GET /admin/outage` (an addition to the contract) answers the outage in force.

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

/// The largest `slowdown` of a capacity cut.
pub const MAX_SLOWDOWN: f64 = 1000.0;

/// An outage in force.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Outage {
    /// No outage.
    None,
    /// Every request fails at once.
    HardDown,
    /// Service times × `slowdown`.
    CapacityCut {
        /// The factor, in [1, 1000].
        slowdown: f64,
    },
    /// Requests fail with `error_rate` after their service time.
    Errors {
        /// The probability, in [0, 1].
        error_rate: f64,
    },
}

impl Outage {
    /// Parses and checks a `POST /admin/outage` body.
    ///
    /// # Errors
    /// A message naming the field and its valid range.
    pub fn parse(body: &[u8]) -> Result<Outage, String> {
        let o: Outage = serde_json::from_slice(body).map_err(|e| {
            format!(
                "invalid outage: {e}; expected {{\"kind\":\"hard-down\"}}, {{\"kind\":\"capacity-cut\",\"slowdown\":F}} or {{\"kind\":\"errors\",\"error_rate\":P}}"
            )
        })?;
        match o {
            Outage::CapacityCut { slowdown } if !(1.0..=MAX_SLOWDOWN).contains(&slowdown) => {
                Err(format!("slowdown = {slowdown}: expected a factor in [1, 1000]"))
            }
            Outage::Errors { error_rate } if !(0.0..=1.0).contains(&error_rate) => {
                Err(format!("error_rate = {error_rate}: expected a probability in [0, 1]"))
            }
            o => Ok(o),
        }
    }

    /// The service-time factor it imposes (1 unless a capacity cut).
    pub fn slowdown(&self) -> f64 {
        match *self {
            Outage::CapacityCut { slowdown } => slowdown,
            _ => 1.0,
        }
    }

    /// The error probability it imposes (0 unless `errors`).
    pub fn error_rate(&self) -> f64 {
        match *self {
            Outage::Errors { error_rate } => error_rate,
            _ => 0.0,
        }
    }
}

/// The switch: the outage in force, watched by requests in the service.
#[derive(Debug)]
pub struct Switch {
    tx: watch::Sender<Outage>,
}

impl Default for Switch {
    fn default() -> Self {
        Switch { tx: watch::channel(Outage::None).0 }
    }
}

impl Switch {
    /// The outage now.
    pub fn now(&self) -> Outage {
        *self.tx.borrow()
    }

    /// A receiver, to wait for a hard-down.
    pub fn subscribe(&self) -> watch::Receiver<Outage> {
        self.tx.subscribe()
    }

    /// Sets the outage (`Outage::None` ends it); `true` if a hard-down began.
    pub fn set(&self, o: Outage) -> bool {
        let before = self.tx.send_replace(o);
        o == Outage::HardDown && before != Outage::HardDown
    }
}

/// `POST /admin/outage`'s answer for a body: 204, or 400 with the reason.
pub fn post(switch: &Switch, body: &[u8]) -> (StatusCode, String, bool) {
    match Outage::parse(body) {
        Ok(o) => {
            let began = switch.set(o);
            (StatusCode::NO_CONTENT, String::new(), began)
        }
        Err(e) => (StatusCode::BAD_REQUEST, e + "\n", false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_parse_and_are_checked() {
        assert_eq!(Outage::parse(br#"{"kind":"hard-down"}"#), Ok(Outage::HardDown));
        assert_eq!(
            Outage::parse(br#"{"kind":"capacity-cut","slowdown":4}"#),
            Ok(Outage::CapacityCut { slowdown: 4.0 })
        );
        assert!(Outage::parse(br#"{"kind":"capacity-cut","slowdown":0.5}"#)
            .unwrap_err()
            .contains("slowdown"));
        assert!(Outage::parse(br#"{"kind":"errors","error_rate":2}"#).unwrap_err().contains("error_rate"));
        assert!(Outage::parse(br#"{"kind":"pause"}"#).unwrap_err().contains("hard-down"));
        let s = Switch::default();
        assert!(s.set(Outage::HardDown));
        assert!(!s.set(Outage::HardDown), "already down");
        s.set(Outage::None);
        assert_eq!(s.now().slowdown(), 1.0);
    }
}
