//! Storm scenarios: who calls whom, how hard, and what goes wrong when.
//!
//! A [`Scenario`] is read from TOML (every field optional, defaulting to the built-in S5
//! experiment) or built in code. An unknown key or a bad value is an error that names the key.
//!
//! ```
//! use rebound_sim::Scenario;
//! let s = Scenario::from_toml("duration = \"60s\"\n[outage]\nstart = \"10s\"\nend = \"20s\"\n")?;
//! assert_eq!(s.clients.count, 1000);
//! assert_eq!(s.duration.as_secs(), 60);
//! assert!(Scenario::from_toml("[clients]\nthinktime = \"1s\"").unwrap_err().to_string().contains("thinktime"));
//! # Ok::<(), rebound_sim::ScenarioError>(())
//! ```

use crate::delay::DelayModel;
use rebound_retry::Spec;
use serde::{Deserialize, Serialize};
use std::time::Duration;

mod clients;
mod fields;
mod inert;
pub mod load;
mod locate;
mod outage;
mod server;
mod validate;
pub use clients::Clients;
pub use fields::{check_fields, FieldError};
pub use load::{Arrivals, Phase};
pub use locate::locate;
pub use outage::{Outage, OutageKind, DEFAULT_SPIKE_FACTOR};
pub use server::{BacklogFull, Server};
pub use validate::ScenarioError;
pub(crate) use validate::{fmt, invalid};

/// A storm scenario: S5's experiment by default.
///
/// # Default
/// 1000 clients thinking 10 s on average (≈ 100 req/s), 2 s timeout; S5's server (100 ms,
/// limit 30, factor 1.05, k 15, 50 ms ticks, accept backlog 511); paused from 15 s to 45 s;
/// run to 120 s; status every 5 s; seed 1; the seven policies of `rebound storm`
/// ([`default_policies`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// The random seed: the same seed gives the same run, byte for byte.
    pub seed: u64,
    /// Simulated run time (default 120 s), in (0, 1 day].
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub duration: Duration,
    /// Interval of the S5 status lines (default 5 s), > 0.
    #[serde(with = "crate::serde_duration")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::HumanDuration"))]
    pub status_interval: Duration,
    /// The clients.
    pub clients: Clients,
    /// The server.
    pub server: Server,
    /// What goes wrong.
    pub outage: Outage,
    /// The services (`[[service]]`), users' entry point first by default; empty means one S5
    /// server configured by `[server]` (see [`crate::graph`]).
    #[serde(rename = "service", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if))]
    pub services: Vec<crate::graph::ServiceConfig>,
    /// Retry policies to compare, as Rebound specs; empty means the seven of `rebound storm`
    /// ([`default_policies`]).
    #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::schema::PolicySpec>"))]
    pub policies: Vec<Spec>,
    /// How a run's verdict is drawn (`[verdict]`, see [`crate::verdict`]).
    pub verdict: crate::verdict::VerdictConfig,
    /// What `rebound advise --scenario` may change and the incidents it must survive
    /// (`[advise]`, see [`crate::tune`]); unused by other commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(!skip_serializing_if, transform = crate::schema::no_default))]
    pub advise: Option<crate::tune::AdviseConfig>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            seed: 1,
            duration: Duration::from_secs(120),
            status_interval: Duration::from_secs(5),
            clients: Clients::default(),
            server: Server::default(),
            outage: Outage::default(),
            services: Vec::new(),
            policies: Vec::new(),
            verdict: crate::verdict::VerdictConfig::default(),
            advise: None,
        }
    }
}

/// The built-in comparison: S5's fixed 100 ms interval, S5's exponential backoff (100 ms,
/// factor e, cap 5 min, normal jitter σ = 100 ms added after the cap), exponential backoff
/// from 100 ms with full, decorrelated and Thain's jitter, capped at 1 min, and the fixed
/// interval under a gRPC retry budget (10 tokens, ratio 0.1) and under SRE client-side
/// throttling (K = 2).
pub fn default_policies() -> Vec<Spec> {
    [
        "constant:base=100ms",
        "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
        "exponential:base=100ms,factor=2,cap=1m,jitter=full",
        "exponential:base=100ms,factor=2,cap=1m,jitter=decorrelated",
        "exponential:base=100ms,factor=2,cap=1m,jitter=thain",
        "constant:base=100ms,budget=grpc:10:0.1",
        "constant:base=100ms,throttle=sre:2",
    ]
    .iter()
    .map(|s| s.parse().expect("built-in specs are valid"))
    .collect()
}

impl Scenario {
    /// Reads a scenario from TOML and validates it.
    ///
    /// # Errors
    /// [`ScenarioError::Toml`] for syntax (naming the line), unknown keys and wrong types
    /// (naming the key's path, the value and its range: [`check_fields`]);
    /// [`ScenarioError::Invalid`] for values out of range.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_with(text, &[])
    }

    /// [`Scenario::from_toml`] whose `policies` are replaced by `policies` (when not empty)
    /// before it is validated, so that the cost estimate is that of the policies that will
    /// run (`--policy`, the lab's `"policies"`), not of the ones they replace (issue 34,
    /// item 13).
    ///
    /// # Errors
    /// As [`Scenario::from_toml`].
    pub fn from_toml_with(text: &str, policies: &[Spec]) -> Result<Scenario, ScenarioError> {
        let mut s: Scenario = toml::from_str(text).map_err(|e| fields::toml_error(text, &e))?;
        if !policies.is_empty() {
            s.policies = policies.to_vec();
        }
        s.validate()?;
        Ok(s)
    }

    /// The policies to run: the scenario's, or the built-in five.
    pub fn policies_or_default(&self) -> Vec<Spec> {
        if self.policies.is_empty() {
            default_policies()
        } else {
            self.policies.clone()
        }
    }

    /// S5's delay model of this scenario's server.
    pub fn delay_model(&self) -> DelayModel {
        let s = &self.server;
        DelayModel {
            min_delay: s.min_delay,
            concurrency_limit: s.concurrency_limit,
            factor: s.factor,
            k: s.k,
        }
    }
}
