// Result tables from the `storm --json` document: verdicts as text coloured by outcome *and*
// cost, the named metrics with a one-line meaning, per-service amplification, and the
// differences between two runs. Fields added by later versions of the document (verdict,
// replications, attempts per request) are shown when present.

import { shortLabel } from "./palette.js";

export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (v, d = 2) => (v == null || !Number.isFinite(v) ? "-" : v.toFixed(d));

/** The metrics the tables name, with their one-line meaning. */
export const MEANINGS = [
  ["verdict", "healthy, recovered (goodput back to ≥ 90 % of before the outage, and it stays), stuck or unstable"],
  ["attempts per request", "users' attempts per user request started"],
  ["attempts per success", "users' attempts per successful request (the summary's amplification)"],
  ["amplification (per service)", "attempts that reached a service per user request started (retries of a collapsed run included)"],
  ["gave up", "user requests abandoned by their policy or budget"],
];

/** A run's cost per success: `attempts_per_success` when the document has it, else `amplification`. */
export const costOf = (r) => (r.attempts_per_success !== undefined ? r.attempts_per_success : r.amplification);

/** {text, cls}: the verdict in words; `cls` good, costly (recovered at ≥ 3 attempts per success) or bad. */
export function verdict(r) {
  const v = r.verdict || (r.recovered ? "recovered" : "stuck");
  const ok = v === "healthy" || v === "recovered";
  const cost = costOf(r);
  let text = v === "recovered" && r.recovery_s != null ? `recovered in ${num(r.recovery_s, 0)} s` : v;
  if (replicated(r)) {
    // With replications the probability leads; run 0's verdict is said to be run 0's.
    const p = r.recovery_probability;
    const often = r.recovered_runs * 2 >= r.runs;
    const mean = r.attempts_per_success_mean?.estimate;
    const costly = often && (mean == null || mean >= 3);
    text = `recovered ${r.recovered_runs}/${r.runs} (${Math.round(p.low * 100)}–${Math.round(p.high * 100)} %) · run 0: ${text}`;
    if (costly) text += mean == null ? " · no success" : ` · at ${num(mean, 1)}× attempts per success (mean)`;
    return { text, cls: !often ? "bad" : costly ? "costly" : "good" };
  }
  const costly = ok && (cost == null || cost >= 3);
  if (costly) text += cost == null ? " · no success" : ` · at ${num(cost, 1)}× attempts per success`;
  return { text, cls: !ok ? "bad" : costly ? "costly" : "good" };
}

/** Whether `r` summarises several runs (its figures are run 0's unless named `_mean`). */
export const replicated = (r) => r.runs > 1 && r.recovery_probability != null;

/** `m` ({estimate, low, high}) as `1.23 (1.10–1.40)`. */
export function withInterval(m, d = 2) {
  if (!m) return "-";
  return m.low != null && m.high != null ? `${num(m.estimate, d)} (${num(m.low, d)}–${num(m.high, d)})` : num(m.estimate, d);
}

function swatch(s) {
  const dash = s.dash.length ? s.dash.join(" ") : "none";
  return `<svg class="swatch" width="26" height="8" aria-hidden="true"><line x1="0" y1="4" x2="26" y2="4" stroke="${s.color}" stroke-width="3" stroke-dasharray="${dash}"/></svg>`;
}

/** The summary table of `reports`; `styleOf(spec)` gives {color, dash}. */
export function summaryTable(reports, styleOf) {
  const hasApr = reports.some((r) => r.attempts_per_request !== undefined);
  // With replications: the probability and the means with their 95 % intervals; a figure
  // that is run 0's alone says so in its header.
  const rep = reports.some(replicated);
  const r0 = rep ? " (run 0)" : "";
  const mean = rep ? " (mean, 95 % interval)" : "";
  const head = ["policy", rep ? "P(recover), 95 % interval" : "verdict", hasApr ? `attempts per request${mean}` : null, `attempts per success${mean}`, `gave up${r0}`, `timeouts${r0}`, `peak in flight${r0}`].filter(Boolean);
  const rows = reports.map((r, i) => {
    const v = verdict(r);
    const many = replicated(r);
    const cells = [
      `<td title="${esc(r.policy)}">${swatch(styleOf(r.policy))} <span class="num">${i + 1}.</span> ${esc(shortLabel(r.policy))}</td>`,
      `<td class="verdict ${v.cls}">${esc(v.text)}</td>`,
      hasApr ? `<td>${many ? withInterval(r.attempts_per_request_mean) : num(r.attempts_per_request)}</td>` : null,
      `<td>${many ? withInterval(r.attempts_per_success_mean) : num(costOf(r))}</td>`,
      `<td>${r.gave_up ?? "-"}</td>`, `<td>${r.timedout ?? "-"}</td>`, `<td>${r.peak_concurrency ?? "-"}</td>`,
    ].filter(Boolean);
    return `<tr data-policy="${esc(r.policy)}">${cells.join("")}</tr>`;
  });
  return `<div class="table-wrap"><table class="summary"><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

/** Per-service amplification (rows: services; columns: policies by number). */
export function amplificationTable(reports) {
  const names = (reports[0].services || []).map((s) => s.name);
  if (!names.length) return "";
  const head = reports.map((r, i) => `<th scope="col" title="${esc(r.policy)}">${i + 1}. ${esc(shortLabel(r.policy))}</th>`).join("");
  const rows = names.map((n) => `<tr data-service="${esc(n)}"><td>${esc(n)}</td>` + reports.map((r) => {
    const s = (r.services || []).find((x) => x.name === n);
    return `<td>${s ? num(s.amplification) : "-"}</td>`;
  }).join("") + "</tr>").join("");
  const r0 = reports.some(replicated) ? " (run 0)" : "";
  return `<div class="table-wrap"><table class="amplification"><caption>Amplification per service${r0}: attempts that reached it per user request</caption>` +
    `<thead><tr><th scope="col">service</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The metrics' names and meanings, once per page. */
export function meanings() {
  return `<dl class="meanings">${MEANINGS.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>`;
}
