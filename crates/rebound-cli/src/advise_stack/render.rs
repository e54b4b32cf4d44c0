//! The advisor's answer as text (the recommendation first, then the ranked table) and as JSON
//! (`recommendation`, `candidates`, `current`, `references`, `spent`).

use crate::table;
use rebound_sim::estimate::{Mean, Proportion};
use rebound_sim::tune::{Advice, Plan, Row, Spent};
use rebound_sim::{Outage, OutageKind, Scenario};
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::Duration;

/// The name of variant `i` (1-based over the incidents): `outage` for the scenario's own,
/// `incident-N` for the `[[advise.incident]]`s.
pub fn incident_names(sc: &Scenario, a: &Advice) -> Vec<String> {
    let own = usize::from(sc.outage.kind != OutageKind::None);
    (1..a.outages.len())
        .map(|i| if i <= own { "outage".to_string() } else { format!("incident-{}", i - own) })
        .collect()
}

/// `db 10x slower 10s..25s`.
pub fn describe(sc: &Scenario, o: &Outage) -> String {
    let h = |d: Duration| humantime::format_duration(d).to_string();
    let target = o
        .service
        .clone()
        .or_else(|| sc.clients.calls.clone())
        .or_else(|| sc.services.first().map(|s| s.name.clone()))
        .unwrap_or_else(|| "server".into());
    let span = format!("{}..{}", h(o.start), h(o.end));
    match o.kind {
        OutageKind::None => "steady state".into(),
        OutageKind::Pause => format!("{target} paused {span}"),
        OutageKind::HardDown => format!("{target} down {span}"),
        OutageKind::CapacityCut => format!("{target} {}x slower {span}", o.slowdown),
        OutageKind::LoadSpike => format!("users' load x{} {span}", o.factor),
        OutageKind::Errors => format!("{target} {}% errors {span}", o.error_rate * 100.0),
    }
}

fn service_names(sc: &Scenario) -> Vec<String> {
    if sc.services.is_empty() {
        vec!["server".into()]
    } else {
        sc.services.iter().map(|s| s.name.clone()).collect()
    }
}

#[derive(Serialize)]
struct RowJson {
    label: String,
    policies: Map<String, Value>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    timeouts: Map<String, Value>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    budget_scopes: Map<String, Value>,
    recovery_probability: Map<String, Value>,
    steady_success_ratio: Mean,
    steady_healthy: Proportion,
    p99_ms: Option<f64>,
    deep_amplification: f64,
    amplification: Map<String, Value>,
    runs: u32,
    capped_runs: u32,
}

fn row_json(sc: &Scenario, a: &Advice, r: &Row) -> RowJson {
    let mut policies = Map::new();
    let (mut timeouts, mut scopes) = (Map::new(), Map::new());
    for (h, s) in a.hops.iter().zip(&r.settings) {
        policies.insert(h.name.clone(), s.spec.to_string().into());
        if let Some(t) = s.timeout {
            timeouts.insert(h.name.clone(), humantime::format_duration(t).to_string().into());
        }
        if s.per_caller {
            scopes.insert(h.name.clone(), "per-caller".into());
        }
    }
    let e = &r.evidence;
    let proportion = |p: &Proportion| serde_json::json!({"estimate": p.estimate, "low": p.low, "high": p.high, "recovered_runs": p.k, "runs": p.n});
    let names = incident_names(sc, a);
    RowJson {
        label: r.label.clone(),
        policies,
        timeouts,
        budget_scopes: scopes,
        recovery_probability: names
            .into_iter()
            .zip(&e.recovery_probability)
            .map(|(n, p)| (n, proportion(p)))
            .collect(),
        steady_success_ratio: e.steady_success_ratio,
        steady_healthy: e.steady_healthy,
        p99_ms: e.p99_ms,
        deep_amplification: e.deep_amplification,
        amplification: service_names(sc)
            .into_iter()
            .zip(&e.amplification)
            .map(|(n, x)| (n, (*x).into()))
            .collect(),
        runs: e.runs,
        capped_runs: e.capped_runs,
    }
}

#[derive(Serialize)]
struct Document<'a> {
    recommendation: Value,
    candidates: Vec<RowJson>,
    current: RowJson,
    references: Vec<RowJson>,
    spent: Spent,
    wall_s: f64,
    plan: &'a Plan,
    hops: Vec<&'a str>,
    incidents: Map<String, Value>,
    deepest_service: &'a str,
    success_floor: f64,
    seeds: Value,
}

/// The JSON document.
///
/// # Errors
/// Not expected: every field is a number or a string.
pub fn json(sc: &Scenario, a: &Advice, plan: &Plan, wall: Duration) -> anyhow::Result<String> {
    let best = row_json(sc, a, &a.candidates[0]);
    let mut rec = serde_json::to_value(&best)?;
    if let Value::Object(m) = &mut rec {
        m.remove("label");
        m.insert("target".into(), a.target.into());
        m.insert("reaches_target".into(), a.reaches_target.into());
    }
    let incidents = incident_names(sc, a)
        .into_iter()
        .zip(&a.outages[1..])
        .map(|(n, o)| Ok((n, serde_json::to_value(o)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    let doc = Document {
        recommendation: rec,
        candidates: a.candidates.iter().map(|r| row_json(sc, a, r)).collect(),
        current: row_json(sc, a, &a.current),
        references: a.references.iter().map(|r| row_json(sc, a, r)).collect(),
        spent: a.spent,
        wall_s: wall.as_secs_f64(),
        plan,
        hops: a.hops.iter().map(|h| h.name.as_str()).collect(),
        incidents,
        deepest_service: &a.deepest,
        success_floor: a.floor,
        seeds: serde_json::json!({"search": a.seeds.0, "recheck": a.seeds.1}),
    };
    Ok(serde_json::to_string_pretty(&doc)?)
}

fn mean_text(m: &Mean) -> String {
    match (m.low, m.high) {
        (Some(l), Some(h)) => format!("{:.4} ({l:.4}–{h:.4})", m.estimate),
        _ => format!("{:.4}", m.estimate),
    }
}

/// The text report: the recommendation, then the ranked table and each row's policies.
pub fn text(sc: &Scenario, a: &Advice, wall: Duration) -> String {
    let best = &a.candidates[0];
    let names = incident_names(sc, a);
    let mut out = if a.reaches_target {
        format!("recommendation (reaches the target {}):\n", a.target)
    } else {
        format!("no candidate reaches the target {} under every incident; the best found:\n", a.target)
    };
    let width = a.hops.iter().map(|h| h.name.len()).max().unwrap_or(5);
    for (h, s) in a.hops.iter().zip(&best.settings) {
        let extra =
            s.timeout.map_or(String::new(), |t| format!("  timeout {}", humantime::format_duration(t)));
        let scope = if s.per_caller { "  budget per caller" } else { "" };
        out += &format!("  {:width$}  {}{extra}{scope}\n", h.name, s.spec);
    }
    for ((n, o), p) in names.iter().zip(&a.outages[1..]).zip(&best.evidence.recovery_probability) {
        out += &format!("  {n} ({}): recovered {p}\n", describe(sc, o));
    }
    out += &format!(
        "  steady state: success ratio {} (current {}), p99 {}\n",
        mean_text(&best.evidence.steady_success_ratio),
        mean_text(&a.current.evidence.steady_success_ratio),
        best.evidence.p99_ms.map_or("-".into(), |p| format!("{p:.0} ms"))
    );
    out += &format!(
        "\nranked on {} runs per row on seeds the search never saw ({}..):\n",
        a.current.evidence.runs, a.seeds.1
    );
    out += &table_text(sc, a, &names);
    out += "\npolicies per row:\n";
    for r in a.candidates.iter().chain([&a.current]).chain(&a.references) {
        let specs: Vec<String> =
            a.hops.iter().zip(&r.settings).map(|(h, s)| format!("{}: {}", h.name, s.spec)).collect();
        out += &format!("  {}: {}\n", r.label, specs.join("; "));
    }
    let s = a.spent;
    out + &format!(
        "\nspent: {} candidates, {} runs, {} events in {:.1} s\n",
        s.candidates,
        s.runs,
        s.events,
        wall.as_secs_f64()
    )
}

fn table_text(sc: &Scenario, a: &Advice, names: &[String]) -> String {
    let services = service_names(sc);
    let mut head: Vec<String> = vec!["row".into()];
    head.extend(names.iter().map(|n| format!("P(recover) {n}")));
    head.extend(["steady success".into(), "p99_ms".into()]);
    head.extend(services.iter().map(|s| format!("amp {s}")));
    let rows: Vec<Vec<String>> = a
        .candidates
        .iter()
        .chain([&a.current])
        .chain(&a.references)
        .map(|r| {
            let e = &r.evidence;
            let mut row = vec![r.label.clone()];
            row.extend(e.recovery_probability.iter().map(|p| p.to_string()));
            row.push(mean_text(&e.steady_success_ratio));
            row.push(e.p99_ms.map_or("-".into(), |p| format!("{p:.0}")));
            row.extend(e.amplification.iter().map(|x| format!("{x:.2}")));
            row
        })
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    table::render(&head, &rows)
}
