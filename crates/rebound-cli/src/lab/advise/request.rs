//! A search request of the page (`POST /api/advise`): its fields, each checked and named in
//! its error, and the search's plan, bounded before it starts — each run within the lab's
//! bounds, the whole search within [`MAX_SEARCH_EVENTS`].

use super::MAX_SEARCH_EVENTS;
use crate::lab::bounds::{check_bounds, BOUNDS};
use rebound_sim::tune::{self, Request};
use rebound_sim::Scenario;
use serde_json::Value;

/// What a request asks: the scenario (its text and parsed), runs per finalist, start
/// candidates, the target and the seed.
pub(super) struct Asked {
    pub text: String,
    pub scenario: Scenario,
    runs: Option<u32>,
    target: f64,
    seed: Option<u64>,
}

impl Asked {
    pub fn request(&self) -> Request<'_> {
        let mut req = Request::new(&self.scenario);
        req.runs = self.runs;
        req.target = self.target;
        req.seed = self.seed;
        req.keep_series = true;
        req.limits = BOUNDS.cost;
        req
    }
}

const KEYS: [&str; 5] = ["scenario", "runs", "candidates", "target", "seed"];

/// The request's fields, each checked; the search's plan within the lab's bounds.
pub(super) fn parse(body: &[u8]) -> Result<(Asked, tune::Plan), String> {
    let req: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body must be a JSON object: {e}"))?;
    let Value::Object(fields) = &req else {
        return Err(format!("the body must be a JSON object, not {req}"));
    };
    if let Some(key) = fields.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{key}` in the advise request: the keys are {}", KEYS.join(", ")));
    }
    let Some(text) = req.get("scenario").and_then(Value::as_str) else {
        return Err("missing `scenario`: the stack's TOML text".into());
    };
    let int = |key: &str, lo: u64, hi: u64| -> Result<Option<u64>, String> {
        match req.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| (lo..=hi).contains(n))
                .map(Some)
                .ok_or_else(|| format!("`{key}` = {v} is invalid: must be an integer in [{lo}, {hi}]")),
        }
    };
    let runs = int("runs", 1, u64::from(BOUNDS.max_runs))?.map(|n| n as u32);
    let candidates = int("candidates", 1, 1000)?.map(|n| n as u32);
    let seed = int("seed", 0, u64::MAX)?;
    let target = match req.get("target") {
        None | Some(Value::Null) => 0.95,
        Some(v) => v
            .as_f64()
            .filter(|p| *p > 0.0 && *p <= 1.0)
            .ok_or_else(|| format!("`target` = {v} is invalid: must be a number in (0, 1]"))?,
    };
    let mut scenario = Scenario::from_toml(text).map_err(|e| e.to_string())?;
    if let Some(c) = candidates {
        scenario.advise.get_or_insert_with(Default::default).candidates = c;
    }
    // Each run is the current configuration or a candidate, one policy at a time.
    let mut current = scenario.clone();
    current.policies = scenario.policies_or_default().into_iter().take(1).collect();
    check_bounds(&current)?;
    let asked = Asked { text: text.to_string(), scenario, runs, target, seed };
    let (_, _, plan) = asked.request().plan().map_err(|e| e.to_string())?;
    if plan.events > MAX_SEARCH_EVENTS {
        return Err(format!(
            "the search would take up to {:.1e} events ({} candidates, {} runs), past the lab's bound of {MAX_SEARCH_EVENTS:.0e}: \
             fewer `advise.candidates` and `advise.refine`, fewer runs per finalist, a shorter `duration` or a lighter load, \
             or `rebound advise --scenario` for big searches",
            plan.events, plan.candidates, plan.runs
        ));
    }
    Ok((asked, plan))
}
