//! The twin's output: the live run in `storm`'s format (its printing code), then simulated
//! against live; the JSON document; the overlaid plot.

use crate::plot::{Panel, Series};
use crate::table;
use rebound_live::twin::compare::{self, Agreement, Figure};
use rebound_live::twin::fidelity::{Bounds, Fidelity, BOUNDS};
use rebound_live::twin::traced::TracesReport;
use rebound_sim::{OutageKind, Scenario, StormReport};
use serde::Serialize;

/// A finished twin run.
pub struct Outcome<'a> {
    /// The scenario run (scaled).
    pub scenario: &'a Scenario,
    /// What was done for the outage.
    pub mechanism: &'a str,
    /// `--scale`.
    pub scale: f64,
    /// The live reports, one per policy.
    pub live: &'a [StormReport],
    /// The simulated reports, one per policy.
    pub simulated: &'a [StormReport],
    /// Every live run's fidelity, in run order.
    pub fidelity: &'a [RunFidelity],
    /// The run's traces file, with --traces.
    pub traces: Option<&'a TracesReport>,
}

/// One live run's fidelity ([`rebound_live::twin::fidelity`]), as `live.fidelity.runs` lists it.
#[derive(Debug, Serialize)]
pub struct RunFidelity {
    /// The users' policy.
    pub policy: String,
    /// The run's seed.
    pub seed: u64,
    /// The figures and the judgement.
    #[serde(flatten)]
    pub fidelity: Fidelity,
}

#[derive(Serialize)]
struct Doc<'a> {
    /// Whether every live run measured the stack rather than a saturated host.
    valid: bool,
    /// Why not, run by run; null when valid.
    reason: Option<String>,
    scenario: &'a Scenario,
    policies: &'a [StormReport],
    simulated: Sim<'a>,
    agreement: Vec<Agreement>,
    live: Live<'a>,
}

#[derive(Serialize)]
struct Sim<'a> {
    scenario: &'a Scenario,
    policies: &'a [StormReport],
}

#[derive(Serialize)]
struct Live<'a> {
    outage: &'a str,
    scale: f64,
    scale_rule: &'static str,
    fidelity: FidelityDoc<'a>,
    /// The traces file (`--traces`): path, spans, lines, bytes, the limit, who dropped spans.
    traces: Option<&'a TracesReport>,
}

#[derive(Serialize)]
struct FidelityDoc<'a> {
    bounds: Bounds,
    runs: &'a [RunFidelity],
}

const SCALE_RULE: &str = "users' count (or rate) / F, service times x F, rate limits / F";

const METRICS: [&str; 7] =
    ["verdict", "recovery_s", "goodput_per_s", "attempts_per_request", "amplification", "p50_ms", "p99_ms"];

impl Outcome<'_> {
    /// Every policy's agreement rows.
    pub fn agreement(&self) -> Vec<Agreement> {
        self.simulated
            .iter()
            .zip(self.live)
            .flat_map(|(s, l)| compare::agreement(self.scenario, s, l))
            .collect()
    }

    /// The JSON document: storm's for the live run, `simulated` (storm's for the same input),
    /// `agreement`, and `live` (the outage's mechanism and the scale).
    pub fn json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(&Doc {
            valid: self.reason().is_none(),
            reason: self.reason(),
            scenario: self.scenario,
            policies: self.live,
            simulated: Sim { scenario: self.scenario, policies: self.simulated },
            agreement: self.agreement(),
            live: Live {
                outage: self.mechanism,
                scale: self.scale,
                scale_rule: SCALE_RULE,
                fidelity: FidelityDoc { bounds: BOUNDS, runs: self.fidelity },
                traces: self.traces,
            },
        })?)
    }

    /// Why the comparison is not valid (every run past a fidelity bound, with its reasons), or
    /// `None` when every run was within them.
    pub fn reason(&self) -> Option<String> {
        let bad: Vec<String> = self
            .fidelity
            .iter()
            .filter(|r| !r.fidelity.valid)
            .map(|r| format!("{} (seed {}): {}", r.policy, r.seed, r.fidelity.reasons.join("; ")))
            .collect();
        (!bad.is_empty()).then(|| {
            format!("the host was too busy for the live run to measure the stack: {}", bad.join(" | "))
        })
    }

    /// The text: how it ran, the live run as `storm` prints it, then simulated vs live.
    pub fn text(&self) -> String {
        let mut out = format!("live run on loopback; outage: {}", self.mechanism);
        if self.scale != 1.0 {
            out += &format!("; --scale {} ({SCALE_RULE})", self.scale);
        }
        out += "\n";
        out += &crate::stack::render_text(self.scenario, self.live);
        out += "\n";
        for r in self.fidelity {
            out += &format!("fidelity of {} (seed {}): {}\n", r.policy, r.seed, r.fidelity.summary());
        }
        if let Some(t) = self.traces {
            out += &traces_line(t);
        }
        match self.reason() {
            Some(reason) => {
                out += &format!(
                    "NOT VALID: {reason}\nsimulated vs live, not valid: the differences measure the host, not the model\n"
                );
            }
            None => out += "simulated vs live (each cell: simulated / live, then the difference)\n",
        }
        let rows = self.agreement();
        let mut table_rows: Vec<Vec<String>> = Vec::new();
        for chunk in rows.chunk_by(|a, b| a.policy == b.policy && a.service == b.service) {
            let mut row = vec![chunk[0].policy.clone(), chunk[0].service.clone()];
            for m in METRICS {
                row.push(chunk.iter().find(|a| a.metric == m).map_or("-".into(), cell));
            }
            table_rows.push(row);
        }
        let mut header = vec!["policy", "service"];
        header.extend(METRICS);
        out + &table::render(&header, &table_rows)
    }

    /// One panel of the users' goodput and one per service, simulated and live overlaid.
    pub fn panels(&self) -> Vec<Panel> {
        let o = &self.scenario.outage;
        let shade = (o.kind != OutageKind::None).then_some((o.start.as_secs_f64(), o.end.as_secs_f64()));
        let line = |name: String, pts: Vec<u64>| Series {
            name,
            points: pts.iter().enumerate().map(|(t, &y)| (t as f64 + 1.0, y as f64)).collect(),
        };
        let panel = |title: String, series| Panel {
            title,
            x_label: "time (s); outage shaded".into(),
            y_label: "OK req/s".into(),
            series,
            shade,
        };
        let mut users = Vec::new();
        for (s, l) in self.simulated.iter().zip(self.live) {
            users.push(line(format!("{}: simulated", s.policy), s.series.iter().map(|p| p.ok).collect()));
            users.push(line(format!("{}: live", l.policy), l.series.iter().map(|p| p.ok).collect()));
        }
        let mut panels = vec![panel("users: goodput, simulated and live".into(), users)];
        for (i, svc) in self.scenario.services.iter().enumerate() {
            let mut series = Vec::new();
            for (s, l) in self.simulated.iter().zip(self.live) {
                let ok = |r: &StormReport| {
                    r.services.get(i).map_or(Vec::new(), |v| v.series.iter().map(|p| p.ok).collect())
                };
                series.push(line(format!("{}: simulated", s.policy), ok(s)));
                series.push(line(format!("{}: live", l.policy), ok(l)));
            }
            panels.push(panel(format!("{}: goodput, simulated and live", svc.name), series));
        }
        panels
    }
}

fn figure(f: &Figure) -> String {
    match f {
        Figure::Number(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Figure::Number(x) => format!("{x:.2}"),
        Figure::Text(t) => t.clone(),
        Figure::Missing => "-".into(),
    }
}

fn cell(a: &Agreement) -> String {
    let diff = match (&a.difference, compare::relative(a)) {
        (Figure::Text(t), _) => t.clone(),
        (Figure::Number(d), Some(r)) => format!("{}{:.0} %", if *d < 0.0 { "-" } else { "+" }, r * 100.0),
        (d, _) => figure(d),
    };
    format!("{} / {} ({diff})", figure(&a.simulated), figure(&a.live))
}

/// The traces file in one line, and what did not make it into it.
fn traces_line(t: &TracesReport) -> String {
    let mut out = format!(
        "traces: {} spans in {} ({} OTLP JSON lines, {:.1} MB)\n",
        t.spans,
        t.path.display(),
        t.lines,
        t.bytes as f64 / 1e6
    );
    for (who, n) in &t.dropped {
        out += &format!(
            "traces: {who} reached the limit of {} spans a process (--traces-max-spans): {n} spans not written\n",
            t.max_spans_per_process
        );
    }
    for who in &t.unreported {
        out += &format!("traces: {who} did not stop in time: its last spans are missing\n");
    }
    out
}
