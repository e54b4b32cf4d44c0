// "Recommend": the stack advisor (`rebound advise --scenario`, run by the lab under its bounds:
// POST /api/advise) on the stack as edited. Progress in runs of the plan's most, Cancel, then
// the ranked table, the evidence chart (goodput over time, recommended vs current, per
// incident), and "Apply" that puts the recommendation into the draft (the lab writes it into
// the TOML as `--write` does, comments kept), with Undo.

import { state, load } from "./editor.js";
import { chart, dispose } from "./charts.js";
import { esc } from "./results.js";
import { currentTitle } from "./title.js";

const $ = (id) => document.getElementById(id);
const headers = { "Content-Type": "application/json" };
let active = null; // {id, timer}
let undo = null; // the draft's text before Apply

/** Wires the Recommend controls. */
export function init() {
  $("advise").addEventListener("click", start);
  $("advise-cancel").addEventListener("click", cancel);
  window.addEventListener("pagehide", () => {
    if (active) fetch(`/api/advise/${active.id}`, { method: "DELETE", headers, keepalive: true }).catch(() => {});
  });
}

const pct = (p) => (p ? `${Math.round(p.estimate * 100)} % (${Math.round(p.low * 100)}–${Math.round(p.high * 100)} %)` : "-");
const mean = (m, d = 4) => (m ? `${m.estimate.toFixed(d)}${m.low != null ? ` (${m.low.toFixed(d)}–${m.high.toFixed(d)})` : ""}` : "-");

async function start() {
  if (active) return;
  $("advise").disabled = true;
  $("advise-error").textContent = "";
  const box = $("advise-result");
  dispose(box);
  box.innerHTML = "";
  const body = { scenario: state.text };
  for (const key of ["runs", "candidates"]) {
    const v = $(`advise-${key}`).value.trim();
    if (v) body[key] = Number(v);
  }
  let r, reply;
  try {
    r = await fetch("/api/advise", { method: "POST", headers, body: JSON.stringify(body) });
    reply = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  } catch (e) {
    reply = { error: `the lab did not answer: ${e.message}` };
  }
  if (!r || !r.ok) {
    $("advise-error").textContent = reply.error || `HTTP ${r.status}`;
    $("advise").disabled = false;
    return;
  }
  const p = reply.plan;
  const searched = { text: state.text, title: currentTitle(), t0: performance.now() };
  active = { id: reply.id, timer: null };
  $("advise-cancel").disabled = false;
  $("advise-progress").hidden = false;
  $("advise-progress").max = p.runs;
  $("advise-progress").value = 0;
  const head = `Search #${reply.id}: at most ${p.candidates} candidates, ${p.runs} runs (steady state and ${p.variants - 1} incident${p.variants === 2 ? "" : "s"})`;
  const poll = async () => {
    if (!active) return;
    const res = await fetch(`/api/advise/${active.id}`).catch(() => null);
    if (!active) return;
    const secs = ((performance.now() - searched.t0) / 1000).toFixed(1);
    if (res && res.status === 202) {
      const s = await res.json();
      $("advise-progress").value = s.runs;
      $("advise-status").textContent = `${head}: ${s.runs} runs done · ${secs} s`;
      active.timer = setTimeout(poll, 300);
      return;
    }
    const doc = res ? await res.json().catch(() => ({ error: `HTTP ${res.status}` })) : { error: "the connection to the lab was lost" };
    if (res && res.ok) {
      finish(`Search #${active.id}: done in ${secs} s`);
      render(doc, searched);
    } else {
      finish(`Search #${active.id}: failed`);
      $("advise-error").textContent = doc.error;
    }
  };
  $("advise-status").textContent = head;
  poll();
}

function finish(status) {
  if (active) clearTimeout(active.timer);
  active = null;
  $("advise-status").textContent = status;
  $("advise-progress").hidden = true;
  $("advise-cancel").disabled = true;
  $("advise").disabled = false;
}

async function cancel() {
  if (!active) return;
  const id = active.id;
  finish(`Search #${id}: cancelling`);
  const r = await fetch(`/api/advise/${id}`, { method: "DELETE", headers }).catch(() => null);
  $("advise-status").textContent = r && r.ok ? `Search #${id}: cancelled` : `Search #${id}: cancelled here (the lab stops a search nobody polls)`;
}

/** The ranked table: the finalists, the current configuration, the reference points. */
function table(doc) {
  const incidents = Object.keys(doc.current.recovery_probability);
  const services = Object.keys(doc.current.amplification);
  const head = ["row", ...incidents.map((n) => `P(recover) ${n}`), "steady success ratio", "steady p99 (ms)", ...services.map((s) => `amplification ${s}`)];
  const rows = [...doc.candidates, doc.current, ...doc.references].map((r, i) => {
    const cls = i === 0 ? "best" : r.label === "current" ? "current" : "";
    const policies = Object.entries(r.policies).map(([h, s]) => `${h}: ${s}`).join("\n");
    const cells = [
      `<th scope="row" title="${esc(policies)}">${esc(r.label)}</th>`,
      ...incidents.map((n) => `<td>${pct(r.recovery_probability[n])}</td>`),
      `<td>${mean(r.steady_success_ratio)}</td>`,
      `<td>${r.p99_ms == null ? "-" : r.p99_ms.toFixed(0)}</td>`,
      ...services.map((s) => `<td>${r.amplification[s].toFixed(2)}</td>`),
    ];
    return `<tr class="${cls}" data-label="${esc(r.label)}">${cells.join("")}</tr>`;
  });
  return `<div class="table-wrap"><table class="advise-rank"><caption>Ranked on ${doc.current.runs} runs per row on seeds the search never saw (hover a row for its policies)</caption>` +
    `<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

function render(doc, searched) {
  const box = $("advise-result");
  const rec = doc.recommendation;
  const verdict = rec.reaches_target
    ? `Recommendation: reaches P(recover) ≥ ${rec.target} under every incident and keeps the steady success ratio.`
    : `No candidate reaches P(recover) ≥ ${rec.target} under every incident; the best found:`;
  const hops = (doc.hops || Object.keys(rec.policies)).map((h) =>
    `<tr data-hop="${esc(h)}"><th scope="row">${esc(h)}</th><td class="spec">${esc(doc.current.policies[h] ?? "-")}</td><td class="spec">${esc(rec.policies[h])}</td></tr>`).join("");
  const s = doc.spent;
  box.innerHTML = `<p class="advise-verdict">${esc(verdict)}</p>` +
    `<div class="table-wrap"><table class="advise-policies"><thead><tr><th scope="col">hop</th><th scope="col">current</th><th scope="col">recommended</th></tr></thead><tbody>${hops}</tbody></table></div>` +
    `<div class="actions"><button type="button" id="advise-apply">Apply to the draft</button> <button type="button" id="advise-undo" hidden>Undo</button> <span id="advise-applied" class="hint" role="status"></span></div>` +
    table(doc) +
    `<p class="hint">Spent: ${s.candidates} candidates, ${s.runs} runs, ${Number(s.events).toExponential(2)} events in ${doc.wall_s.toFixed(1)} s.</p>` +
    `<div id="advise-charts" class="charts"></div>`;
  $("advise-apply").addEventListener("click", () => {
    undo = state.text;
    load(doc.draft);
    $("advise-undo").hidden = false;
    $("advise-applied").textContent = state.text === searched.text || undo === searched.text
      ? "Applied: the draft has the recommended policies (Undo restores it)."
      : "Applied over edits made since the search (Undo restores them).";
  });
  $("advise-undo").addEventListener("click", () => {
    if (undo == null) return;
    load(undo);
    undo = null;
    $("advise-undo").hidden = true;
    $("advise-applied").textContent = "Undone: the draft is as before Apply.";
  });
  const charts = $("advise-charts");
  const styles = { recommended: { color: "#0072B2", dash: [] }, current: { color: "#D55E00", dash: [8, 4] } };
  for (const p of doc.evidence) {
    const lines = p.series.map((x) => ({ name: x.name, full: x.name, ...(styles[x.name] || styles.current), data: x.points }));
    const fig = chart(charts, p.title, p.y_label, lines, p.shade, searched.title);
    fig.classList.add("evidence");
  }
}
