// The comparison of two runs, A and B: a table of named metrics, A | B | difference (B − A),
// per policy and per service, with 95 % intervals where the runs have replications; then the
// scenario keys that differ, each as a value a person reads (lists joined, services by name —
// never a JSON array), the seeds always shown.

import { shortLabel } from "./palette.js";
import { esc, verdict, costOf, replicated } from "./results.js";

const fixed = (v, d) => (v == null || !Number.isFinite(v) ? "-" : v.toFixed(d));
const signed = (v, d) => (v > 0 ? "+" : v < 0 ? "−" : "±") + fixed(Math.abs(v), d);

/** The 95 % interval of `b − a` from the intervals of `a` and `b` ({estimate, low, high}):
 * MOVER (Zou & Donner 2008, "Construction of confidence limits about effect measures"); for
 * two proportions with Wilson intervals it is Newcombe's (1998) method 10. Without both
 * intervals, the difference alone. */
export function difference(a, b) {
  const d = b.estimate - a.estimate;
  if ([a.low, a.high, b.low, b.high].some((v) => v == null)) return { estimate: d };
  return {
    estimate: d,
    low: d - Math.hypot(b.estimate - b.low, a.high - a.estimate),
    high: d + Math.hypot(b.high - b.estimate, a.estimate - a.low),
  };
}

// A figure of a policy's report: {estimate, low?, high?} or null; `run0` when it is run 0's
// alone although the run had replications.
const figure = (mean, single) => (r) => {
  if (replicated(r) && mean(r)) return mean(r);
  const v = single(r);
  return v == null ? null : { estimate: v, run0: replicated(r) };
};

/** The metrics compared per policy: [name, meaning, figure(report), digits, scale]. */
export const POLICY_METRICS = [
  ["P(recover)", "share of runs recovered (healthy or recovered); one run: 1 or 0", figure((r) => r.recovery_probability, (r) => (/^(healthy|recovered)/.test(verdict(r).text) ? 1 : 0)), 0, 100],
  ["attempts per request", "users' attempts per user request started", figure((r) => r.attempts_per_request_mean, (r) => r.attempts_per_request), 2, 1],
  ["attempts per success", "users' attempts per successful request", figure((r) => r.attempts_per_success_mean, costOf), 2, 1],
  ["p99 latency (ms)", "the called service's p99 latency", figure((r) => r.p99_ms_mean, (r) => r.p99_ms), 0, 1],
  ["recovery (s)", "seconds from the outage's end to recovery", figure(() => null, (r) => r.recovery_s), 0, 1],
  ["gave up", "user requests abandoned", figure(() => null, (r) => r.gave_up), 0, 1],
  ["timeouts", "attempts timed out", figure(() => null, (r) => r.timedout), 0, 1],
];

function cell(f, d, scale) {
  if (!f) return "-";
  const pct = scale === 100 ? " %" : "";
  const v = (x) => fixed(x * scale, d);
  let text = v(f.estimate) + pct;
  if (f.low != null && f.high != null) text += ` (${v(f.low)}–${v(f.high)}${pct})`;
  return f.run0 ? `${text} (run 0)` : text;
}

function diffCell(a, b, d, scale) {
  if (!a || !b) return "-";
  const x = difference(a, b);
  const unit = scale === 100 ? " pts" : "";
  let text = signed(x.estimate * scale, d) + unit;
  if (x.low != null) text += ` (${signed(x.low * scale, d)} to ${signed(x.high * scale, d)})`;
  return text;
}

const row = (cls, attrs, name, title, a, b, diff) =>
  `<tr class="${cls}"${attrs}><th scope="row" title="${esc(title)}">${esc(name)}</th><td class="a">${esc(a)}</td><td class="b">${esc(b)}</td><td class="d">${esc(diff)}</td></tr>`;

/** Scenario keys as readable text, flattened: `clients.count`, `service[db].workers`,
 * `policies` (joined). */
export function flatten(obj, prefix = "", out = {}) {
  for (const [k, v] of Object.entries(obj || {})) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (Array.isArray(v)) {
      if (v.every((x) => x === null || typeof x !== "object")) out[key] = v.length ? v.join(", ") : "(none)";
      else v.forEach((x, i) => flatten(x, `${key}[${x && x.name != null ? x.name : x && x.to != null ? `to ${x.to}` : i}]`, out));
    } else if (v && typeof v === "object") flatten(v, key, out);
    else out[key] = String(v);
  }
  return out;
}

const seeds = (e) => (e.runs > 1 ? `${e.seed}–${Number(e.seed) + e.runs - 1} (${e.runs} runs)` : String(e.seed));

/** The comparison table of history entries `a` and `b`. */
export function diffTable(a, b) {
  const rows = [row("seed", "", "seed", "the seed of each run (replications: seed, seed+1, ...)", seeds(a), seeds(b), a.seed === b.seed && a.runs === b.runs ? "same" : "differ")];
  const specs = [...new Set([...a.doc.policies, ...b.doc.policies].map((r) => r.policy))];
  for (const spec of specs) {
    const ra = a.doc.policies.find((r) => r.policy === spec), rb = b.doc.policies.find((r) => r.policy === spec);
    rows.push(`<tr class="group" data-policy="${esc(spec)}"><th scope="rowgroup" colspan="4" title="${esc(spec)}">policy ${esc(shortLabel(spec))}${!ra ? " (B only)" : !rb ? " (A only)" : ""}</th></tr>`);
    rows.push(row("metric", ` data-policy="${esc(spec)}" data-metric="verdict"`, "verdict", "the verdict (run 0's, with replications' share first)", ra ? verdict(ra).text : "(not run)", rb ? verdict(rb).text : "(not run)", ra && rb && verdict(ra).text === verdict(rb).text ? "same" : "differ"));
    for (const [name, meaning, f, d, scale] of POLICY_METRICS) {
      const fa = ra && f(ra), fb = rb && f(rb);
      if (!fa && !fb) continue;
      rows.push(row("metric", ` data-policy="${esc(spec)}" data-metric="${esc(name)}"`, name, meaning, cell(fa, d, scale), cell(fb, d, scale), diffCell(fa, fb, d, scale)));
    }
    const names = [...new Set([...(ra?.services || []), ...(rb?.services || [])].map((s) => s.name))];
    for (const n of names) {
      const amp = (r) => { const s = (r?.services || []).find((x) => x.name === n); return s ? { estimate: s.amplification, run0: replicated(r) } : null; };
      const fa = amp(ra), fb = amp(rb);
      rows.push(row("metric service", ` data-policy="${esc(spec)}" data-service="${esc(n)}"`, `amplification at ${n}`, "attempts that reached the service per user request", cell(fa, 2, 1), cell(fb, 2, 1), diffCell(fa, fb, 2, 1)));
    }
  }
  const fa = flatten(a.doc.scenario), fb = flatten(b.doc.scenario);
  const keys = [...new Set([...Object.keys(fa), ...Object.keys(fb)])].filter((k) => k !== "seed" && fa[k] !== fb[k]);
  if (keys.length) rows.push(`<tr class="group"><th scope="rowgroup" colspan="4">scenario keys that differ</th></tr>`);
  for (const k of keys) rows.push(row("key", ` data-key="${esc(k)}"`, k, k, fa[k] ?? "(absent)", fb[k] ?? "(absent)", ""));
  return `<div class="table-wrap"><table class="diff"><caption>Run ${esc(a.label)} (A) against run ${esc(b.label)} (B): each policy's figures, the difference B − A` +
    `${replicated(a.doc.policies[0] || {}) || replicated(b.doc.policies[0] || {}) ? " with its 95 % interval where both have replications" : ""}, then the scenario keys that differ</caption>` +
    `<thead><tr><th scope="col">metric</th><th scope="col">A: run ${esc(a.label)}</th><th scope="col">B: run ${esc(b.label)}</th><th scope="col">difference (B − A)</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}
