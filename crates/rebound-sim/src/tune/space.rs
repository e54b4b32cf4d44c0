//! The search space: the hops a stack retries at, the knobs of each, and how a point of the
//! unit cube becomes one retry policy per hop.
//!
//! Every hop has [`DIMS`] coordinates in [0, 1): retries, base, cap, multiplier, budget kind,
//! two budget parameters, budget scope, timeout. Durations, token counts and ratios are read on
//! a log scale (equal steps multiply), counts and percentages on a linear one; values are
//! rounded (whole ms, multipliers to 0.1, ratios to 0.01, whole tokens and percents) so that
//! every candidate is a spec a person would write, and two points that round alike are one
//! candidate.

use super::config::{AdviseConfig, BudgetKind, ScopeKind};
use crate::retrier::{CallBudgetScope, ClientBudgetScope};
use crate::scenario::Scenario;
use rebound_retry::Spec;
use std::time::Duration;

/// Coordinates per hop.
pub const DIMS: usize = 9;

pub use super::hops::{hops, Hop, Target};

/// One hop's setting: its policy, and its timeout and budget scope when the search sets them.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The retry policy.
    pub spec: Spec,
    /// The per-attempt timeout, when the search sets it.
    pub timeout: Option<Duration>,
    /// One budget per caller (`client` / `worker`) rather than shared, when it has a budget.
    pub per_caller: bool,
}

impl Setting {
    /// A setting with `spec` alone (timeouts and scopes as in the scenario).
    pub fn spec(spec: Spec) -> Setting {
        Setting { spec, timeout: None, per_caller: false }
    }
}

/// What the export can express (`rebound advise --export`): the space is narrowed to it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Expressible {
    /// The most retries (gRPC: maxAttempts ≤ 5, so 4).
    pub max_retries: Option<u32>,
    /// The only multiplier (Envoy: 2).
    pub multiplier: Option<f64>,
    /// Whether a token bucket can be set.
    pub token_bucket: bool,
    /// Whether a retry breaker can be set.
    pub retry_breaker: bool,
    /// Whether a per-attempt timeout can be set.
    pub per_try_timeout: bool,
    /// Whether Finagle's percentage budget can be set (Envoy's `retry_budget`).
    pub percent_budget: bool,
    /// Whether only full jitter can be set.
    pub full_jitter_only: bool,
    /// Whether every hop must carry the same budget (gRPC: one `retryThrottling` per service
    /// config): the first hop's budget coordinates then decide every hop's.
    pub shared_budget: bool,
}

/// The knobs' ranges, as the search reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    cfg: AdviseConfig,
    shared_budget: bool,
}

fn log_scale(lo: f64, hi: f64, u: f64) -> f64 {
    if lo >= hi {
        lo
    } else {
        lo * (hi / lo).powf(u.clamp(0.0, 1.0))
    }
}

fn pick<T: Copy>(v: &[T], u: f64) -> T {
    v[((u.clamp(0.0, 1.0) * v.len() as f64) as usize).min(v.len() - 1)]
}

impl Space {
    /// The space `cfg` describes, narrowed to what `export` can express.
    pub fn new(cfg: &AdviseConfig, export: Option<Expressible>) -> Space {
        let mut cfg = cfg.clone();
        if let Some(x) = export {
            if let Some(m) = x.max_retries {
                cfg.max_retries = [cfg.max_retries[0].min(m), cfg.max_retries[1].min(m)];
            }
            if let Some(m) = x.multiplier {
                cfg.multiplier = [m, m];
            }
            cfg.budgets.retain(|b| match b {
                BudgetKind::None => true,
                BudgetKind::Grpc => x.token_bucket,
                BudgetKind::RetryBreaker => x.retry_breaker,
                BudgetKind::Finagle => x.percent_budget,
            });
            if x.full_jitter_only {
                cfg.jitter = "full".into();
            }
            if cfg.budgets.is_empty() {
                cfg.budgets.push(BudgetKind::None);
            }
            if !x.per_try_timeout {
                cfg.timeout = None;
            }
        }
        Space { cfg, shared_budget: export.is_some_and(|x| x.shared_budget) }
    }

    /// The settings of every hop at `point` ([`DIMS`] coordinates per hop).
    pub fn settings(&self, point: &[f64]) -> Vec<Setting> {
        let first: Vec<f64> = point.iter().take(DIMS).copied().collect();
        point
            .chunks(DIMS)
            .map(|u| {
                if self.shared_budget {
                    let mut u = u.to_vec();
                    u[4..8].copy_from_slice(&first[4..8]);
                    self.setting(&u)
                } else {
                    self.setting(u)
                }
            })
            .collect()
    }

    /// The setting of one hop at `u` (its [`DIMS`] coordinates).
    pub fn setting(&self, u: &[f64]) -> Setting {
        let c = &self.cfg;
        let [rlo, rhi] = c.max_retries;
        let retries = (rlo + (u[0] * f64::from(rhi - rlo + 1)) as u32).min(rhi);
        let ms = |lo: Duration, hi: Duration, u: f64| {
            let v = log_scale(lo.as_secs_f64() * 1e3, hi.as_secs_f64() * 1e3, u).round().max(1.0);
            Duration::from_millis(v as u64)
        };
        let timeout = c.timeout.map(|[lo, hi]| ms(lo, hi, u[8]));
        if retries == 0 {
            return Setting { spec: no_retries(), timeout, per_caller: false };
        }
        let base = ms(c.base[0], c.base[1], u[1]);
        let cap = ms(c.cap[0], c.cap[1], u[2]).max(base);
        let mult = (c.multiplier[0] + u[3] * (c.multiplier[1] - c.multiplier[0])) * 10.0;
        let mult = (mult.round() / 10.0).clamp(c.multiplier[0], c.multiplier[1]);
        let budget = match pick(&c.budgets, u[4]) {
            BudgetKind::None => String::new(),
            BudgetKind::Grpc => {
                let t = log_scale(f64::from(c.grpc_tokens[0]), f64::from(c.grpc_tokens[1]), u[5]).round();
                let r = (log_scale(c.grpc_ratio[0], c.grpc_ratio[1], u[6]) * 100.0).round() / 100.0;
                format!(",budget=grpc:{t}:{}", r.clamp(c.grpc_ratio[0], c.grpc_ratio[1]))
            }
            BudgetKind::RetryBreaker => {
                let p = c.breaker_percent[0] + u[5] * (c.breaker_percent[1] - c.breaker_percent[0]);
                format!(",retry-breaker={}%", p.round().clamp(1.0, 99.0))
            }
            BudgetKind::Finagle => {
                let p = c.finagle_percent[0] + u[5] * (c.finagle_percent[1] - c.finagle_percent[0]);
                format!(",budget=finagle:{}:10s:10", p.round().clamp(1.0, 100.0))
            }
        };
        let per_caller = !budget.is_empty() && pick(&c.budget_scopes, u[7]) == ScopeKind::PerCaller;
        let text = format!(
            "exponential:base={},factor={mult},cap={},jitter={},max-retries={retries}{budget}",
            crate::scenario::fmt(base),
            crate::scenario::fmt(cap),
            c.jitter
        );
        let spec = text.parse().unwrap_or_else(|_| no_retries());
        Setting { spec, timeout, per_caller }
    }
}

/// `constant:max-retries=0`: no retries (a call's default policy).
pub fn no_retries() -> Spec {
    "constant:max-retries=0".parse().expect("a valid spec")
}

/// The scenario's own setting of `hop` (its first target's policy, timeout and scope).
pub fn current(sc: &Scenario, hop: &Hop) -> Setting {
    match hop.targets[0] {
        Target::Users => Setting {
            spec: sc.policies_or_default().swap_remove(0),
            timeout: None,
            per_caller: sc.clients.budget_scope.per_client(),
        },
        Target::Call { service, call } => {
            let c = &sc.services[service].calls[call];
            Setting { spec: c.policy.clone(), timeout: None, per_caller: c.budget_scope.per_client() }
        }
    }
}

/// `sc` with `settings[i]` at `hops[i]`; returns it with the users' policy to run.
pub fn apply(sc: &Scenario, hops: &[Hop], settings: &[Setting]) -> (Scenario, Spec) {
    let mut s = sc.clone();
    s.advise = None;
    let mut users = sc.policies_or_default().swap_remove(0);
    for (hop, set) in hops.iter().zip(settings) {
        for t in &hop.targets {
            match *t {
                Target::Users => {
                    users = set.spec.clone();
                    if let Some(d) = set.timeout {
                        s.clients.timeout = d;
                    }
                    s.clients.budget_scope =
                        if set.per_caller { ClientBudgetScope::Client } else { ClientBudgetScope::Shared };
                }
                Target::Call { service, call } => {
                    let c = &mut s.services[service].calls[call];
                    c.policy = set.spec.clone();
                    if set.timeout.is_some() {
                        c.timeout = set.timeout;
                    }
                    c.budget_scope =
                        if set.per_caller { CallBudgetScope::Worker } else { CallBudgetScope::Service };
                }
            }
        }
    }
    s.policies = vec![users.clone()];
    (s, users)
}
