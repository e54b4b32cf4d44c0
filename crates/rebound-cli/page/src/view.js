// The results view: one run (or two compared: A and B overlaid on the same charts, with a table
// of their differences), its tables, the service graph with the run's figures, the charts for
// the metrics picked, and the exports.

import { chart, dispose, METRICS, toSvg, toPng } from "./charts.js";
import { slots, style, shortLabel } from "./palette.js";
import { summaryTable, amplificationTable, meanings, esc } from "./results.js";
import { diffTable } from "./compare.js";
import { redrawGraph, seconds } from "./editor.js";
import { SESSION } from "./session.js";

const $ = (id) => document.getElementById(id);
let shown = [];

/** Shows `entries` (one run, or two to compare). */
export function show(entries) {
  shown = entries;
  const box = $("view");
  dispose(box);
  if (!entries.length) { box.innerHTML = ""; return; }
  const specs = [...new Set(entries.flatMap((e) => e.doc.policies.map((r) => r.policy)))];
  const slot = slots(specs);
  const styleOf = (spec) => style(slot[spec]);
  let html = entries.length === 2 ? diffTable(entries[0], entries[1]) : "";
  for (const [i, e] of entries.entries()) {
    const tag = entries.length === 2 ? ["A", "B"][i] + ": " : "";
    html += `<section class="run" data-run="${esc(e.apiId)}"><h3>${tag}Run ${esc(e.label)}: ${esc(e.name)} · seed ${esc(e.seed)}${e.runs > 1 ? ` · ${e.runs} runs` : ""}</h3>`;
    html += summaryTable(e.doc.policies, styleOf) + amplificationTable(e.doc.policies) + "</section>";
  }
  box.innerHTML = html + meanings();
  reportLink(entries[0]);
  pickers(entries);
  drawCharts();
  graphStats();
}

function pickers(entries) {
  const scope = $("scope");
  const keep = scope.value;
  scope.innerHTML = "";
  scope.add(new Option("users (the edge)", ""));
  for (const s of entries[0].doc.policies[0]?.services || []) scope.add(new Option(`service ${s.name}`, s.name));
  scope.value = [...scope.options].some((o) => o.value === keep) ? keep : "";
  const pol = $("graph-policy");
  pol.innerHTML = "";
  entries[0].doc.policies.forEach((r, i) => pol.add(new Option(`${i + 1}. ${shortLabel(r.policy)}`, String(i))));
}

/** The link to the lab's `--html` report of `entry`: the lab keeps it for the runs it made since
 * this page loaded (its ids start again at 1 when it restarts). */
function reportLink(entry) {
  const a = $("export-html");
  const ours = entry.session === SESSION;
  if (ours) a.href = `/api/runs/${entry.apiId}/report.html`;
  else a.removeAttribute("href");
  a.download = `storm-${entry.apiId}.html`;
  a.title = ours ? "the report `rebound storm --html` writes" : "kept by the lab for runs made since this page loaded: Edit, then Run again";
}

/** Draws one chart per picked metric for the picked scope. */
export function drawCharts() {
  const box = $("charts");
  dispose(box);
  box.innerHTML = "";
  if (!shown.length) return;
  const service = $("scope").value;
  const specs = [...new Set(shown.flatMap((e) => e.doc.policies.map((r) => r.policy)))];
  const slot = slots(specs);
  const sc = shown[0].doc.scenario;
  const outage = sc.outage && sc.outage.kind !== "none" ? [seconds(sc.outage.start), seconds(sc.outage.end)] : null;
  const picked = [...document.querySelectorAll("#metrics input:checked")].map((i) => i.value);
  for (const m of picked) {
    const def = METRICS[m];
    const f = service ? def.service : def.edge;
    if (!f) continue;
    const lines = [];
    shown.forEach((e, k) => e.doc.policies.forEach((r, i) => {
      const series = service ? (r.services || []).find((s) => s.name === service)?.series : r.series;
      if (!series) return;
      const st = style(slot[r.policy]);
      const tag = shown.length === 2 ? ["A ", "B "][k] : "";
      lines.push({
        name: `${tag}${i + 1}. ${shortLabel(r.policy)}`, full: `${tag}${r.policy}`, color: st.color, dash: st.dash,
        width: k ? 3.2 : 1.8, opacity: k ? 0.5 : 1, data: series.map((p) => [p.t + 1, f(p)]),
      });
    }));
    const where = service ? `${service}: ` : "";
    const scenario = shown.map((e, k) => `${shown.length === 2 ? ["A: ", "B: "][k] : ""}${e.name}`).join("; ");
    const fig = chart(box, where + def.label, def.unit, lines, outage, scenario);
    fig.dataset.metric = m;
    const bar = document.createElement("div");
    bar.className = "chart-export";
    for (const kind of ["svg", "png"]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = kind.toUpperCase();
      b.className = `export-${kind}`;
      b.setAttribute("aria-label", `Download the ${def.label} chart as ${kind.toUpperCase()}`);
      b.addEventListener("click", async () => download(`rebound-${m}.${kind}`, kind === "svg" ? new Blob([toSvg(fig)], { type: "image/svg+xml" }) : await toPng(fig)));
      bar.append(b);
    }
    fig.querySelector("figcaption").append(bar);
  }
}

/** The graph view with the chosen policy's figures: attempts/s and amplification per service. */
export function graphStats() {
  if (!shown.length) return;
  const r = shown[0].doc.policies[Number($("graph-policy").value) || 0];
  if (!r) return;
  const secs = seconds(shown[0].doc.scenario.duration) || 1;
  const stats = {};
  for (const s of r.services || []) stats[s.name] = { rate: s.attempts / secs, amplification: s.amplification };
  if (!(r.services || []).length) stats.server = { rate: r.attempts / secs, amplification: r.attempts_per_success ?? r.amplification };
  redrawGraph(stats);
}

/** Saves `blob` as `name` through the browser's download. */
export function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/** The shown run's series as CSV: one row per policy, scope and second. */
export function csv(entry) {
  const rows = ["policy,scope,t,ok,attempts,retries,timedout,errors,shed,queue,in_flight,gave_up"];
  const q = (s) => `"${String(s).replace(/"/g, '""')}"`;
  for (const r of entry.doc.policies) {
    for (const p of r.series) rows.push([q(r.policy), "users", p.t, p.ok, p.sent, "", p.timedout, p.errors, "", "", p.concurrency, p.gave_up].join(","));
    for (const s of r.services || []) {
      for (const p of s.series) rows.push([q(r.policy), q(s.name), p.t, p.ok, p.first + p.retries + (p.hedges || 0), p.retries, p.timedout, p.errors, p.shed, p.queue, p.in_flight, ""].join(","));
    }
  }
  return rows.join("\n") + "\n";
}

/** The run shown first (the one exports describe). */
export const current = () => shown[0];
