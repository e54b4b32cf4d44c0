//! The statistics of a fit, each in bounded memory: a uniform sample (reservoir), running
//! moments, the log-normal's fit and its Kolmogorov–Smirnov distance, quantile tables, the
//! concurrency sweep, arrivals and their phases, and the retry policy behind a hop's gaps.

pub mod arrivals;
pub mod concurrency;
pub mod gaps;
pub mod lognormal;
pub mod moments;
pub mod reservoir;
pub mod retry;

pub use arrivals::{Arrivals, Phase};
pub use concurrency::Sweep;
pub use lognormal::{ks_lognormal, LogNormalFit};
pub use moments::Moments;
pub use reservoir::Reservoir;
pub use retry::{fit_retries, RetryFit};
