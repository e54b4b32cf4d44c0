//! # rebound-sim
//!
//! A discrete-event simulator of clients retrying against an overloaded server.
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

pub mod contend;
pub mod delay;
pub mod serde_duration;

pub use delay::DelayModel;
