//! The stack advisor: what should each hop of a stack set, so that it survives its incidents?
//!
//! Why: the lab answers "what happens if", but a user's question is "what should I set?". On
//! a three-tier stack with retries at every hop, guessing settings and rerunning by hand rarely
//! finds a per-hop budget that recovers and still retries transient errors. This module
//! searches the hops' retry settings ([`AdviseConfig`]) with the simulator itself — the
//! scenario as written is the *current* configuration, run with each candidate's policies in
//! place — and proves its answer on seeds the search never saw.
//!
//! ## The method (simulation optimisation)
//! 1. a Latin hypercube start over every tuned hop's knobs ([`design`], McKay et al. 1979);
//! 2. successive halving with racing ([`search`], Jamieson & Talwalkar 2016; Kim & Nelson
//!    2001), every candidate on the same seeds (common random numbers, [`evaluate`]);
//! 3. local refinement around the leaders, raced the same way;
//! 4. the finalists, the current configuration and reference points re-run on unseen seeds;
//!    the ranked table and the recommendation come from those runs ([`score`] orders them).
//!
//! The cost — candidates × runs × variants × events per run — is bounded before the search
//! starts ([`plan`]); each run keeps [`crate::cost::CLI`]'s caps.
//!
//! ```
//! use rebound_sim::tune::{advise, Request};
//! let sc = rebound_sim::Scenario::from_toml(r#"
//! duration = "30s"
//! policies = ["exponential:base=10ms,max-retries=3"]
//! [clients]
//! rate = "50/s"
//! [[service]]
//! name = "api"
//! [[service.call]]
//! to = "db"
//! policy = "exponential:base=10ms,max-retries=3"
//! [[service]]
//! name = "db"
//! [outage]
//! service = "db"
//! kind = "hard-down"
//! start = "10s"
//! end = "15s"
//! [advise]
//! candidates = 3
//! refine = 0
//! first_runs = 1
//! runs = 2
//! "#)?;
//! let advice = advise(&Request::new(&sc), &|| {}).unwrap();
//! assert_eq!(advice.hops.len(), 2); // users, api->db
//! assert_eq!(advice.references.len(), 5);
//! # Ok::<(), rebound_sim::ScenarioError>(())
//! ```

pub mod check;
pub mod config;
pub mod design;
pub mod evaluate;
mod hops;
pub mod plan;
pub mod replay;
mod rows;
pub mod score;
pub mod search;
pub mod space;

pub use config::{AdviseConfig, BudgetKind, ScopeKind};
pub use plan::Plan;
pub use replay::{Job, Replay};
pub use rows::{advise, advise_with, Advice, AdviseError, Request, Row};
pub use search::Spent;
pub use space::{Expressible, Hop, Setting};
