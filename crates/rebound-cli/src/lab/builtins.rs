//! The lab's built-in scenarios: S5's storm under each kind of outage, then the shipped
//! examples. Each is handed to the page as its TOML, because the TOML is what runs: an example
//! keeps its comments and its own policies, and S5's built-ins write out the seven defaults.

use rebound_sim::Scenario;

/// Service-graph examples (`examples/scenarios/`, linked as the crate's `scenarios/` so that the
/// package carries them), compiled in so the page works anywhere.
const EXAMPLES: [(&str, &str); 14] = [
    (
        "Three tiers, every layer retrying 3 times; db down 30 s",
        include_str!("../../scenarios/three-tier.toml"),
    ),
    ("Three tiers, retries at the edge only", include_str!("../../scenarios/three-tier-edge-only.toml")),
    ("Three tiers, gRPC retry budget at every hop", include_str!("../../scenarios/three-tier-budget.toml")),
    ("Open-loop users (Poisson arrivals)", include_str!("../../scenarios/open-loop.toml")),
    (
        "Three tiers with deep queues, users' load x3 for 10 s",
        include_str!("../../scenarios/load-spike.toml"),
    ),
    (
        "Three tiers retrying errors; db 50 % errors for 30 s",
        include_str!("../../scenarios/error-burst.toml"),
    ),
    ("A 3 s GC pause under constant arrivals", include_str!("../../scenarios/gc-pause.toml")),
    // Issue 29's defenses against one storm (the guide's docs/src/lab/defenses.md, "One stack, one outage").
    ("Queue storm: a FIFO API paused 10 s never recovers", include_str!("../../scenarios/queue-storm.toml")),
    ("Queue storm, defended: adaptive LIFO", include_str!("../../scenarios/queue-storm-adaptive-lifo.toml")),
    ("Queue storm, defended: CoDel", include_str!("../../scenarios/queue-storm-codel.toml")),
    (
        "Queue storm, defended: gradient2 concurrency limit",
        include_str!("../../scenarios/queue-storm-concurrency-limit.toml"),
    ),
    (
        "Queue storm, defended: rate limit (429 + Retry-After)",
        include_str!("../../scenarios/queue-storm-rate-limit.toml"),
    ),
    (
        "Queue storm, defended: a second replica, one paused",
        include_str!("../../scenarios/queue-storm-replicas.toml"),
    ),
    (
        "Queue storm, defended: a retry budget per user",
        include_str!("../../scenarios/queue-storm-per-client-budget.toml"),
    ),
];

/// `(name, TOML, scenario)`: S5's storm under each kind of outage (with the seven default
/// policies written out), then the service-graph examples exactly as shipped, comments and
/// their own policies included: the TOML is what runs.
pub fn builtin_scenarios() -> Vec<(&'static str, String, Scenario)> {
    let s5 = Scenario { policies: rebound_sim::default_policies(), ..Scenario::default() };
    let mut down = s5.clone();
    down.outage.kind = rebound_sim::OutageKind::HardDown;
    let mut cut = s5.clone();
    cut.outage.kind = rebound_sim::OutageKind::CapacityCut;
    cut.outage.slowdown = 12.0;
    let mut out: Vec<_> = [
        ("S5's storm: server paused 15-45 s", s5),
        ("S5, server hard down 15-45 s", down),
        ("S5, server 12x slower 15-45 s", cut),
    ]
    .into_iter()
    .map(|(name, s)| (name, toml_of(&s), s))
    .collect();
    for (name, text) in EXAMPLES {
        // A shipped example that does not parse is a bug the lab_api tests catch.
        if let Ok(s) = Scenario::from_toml(text) {
            out.push((name, text.to_string(), s));
        }
    }
    out
}

/// A scenario as the TOML a user would write, its policies one per line.
fn toml_of(s: &Scenario) -> String {
    let mut head = s.clone();
    head.policies.clear();
    let text = toml::to_string(&head).unwrap_or_default();
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with("policies")).collect();
    let (top, tables) = body.split_at(body.iter().position(|l| l.starts_with('[')).unwrap_or(body.len()));
    let policies: String = s.policies.iter().map(|p| format!("    \"{p}\",\n")).collect();
    format!("{}\npolicies = [\n{policies}]\n\n{}\n", top.join("\n").trim_end(), tables.join("\n"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_shipped_example_parses_into_a_builtin() {
        let all = super::builtin_scenarios();
        assert_eq!(all.len(), 3 + super::EXAMPLES.len(), "an example was skipped: it does not parse");
        assert!(all
            .iter()
            .any(|(name, _, s)| name.contains("rate limit") && s.services[0].rate_limit.is_some()));
    }
}
