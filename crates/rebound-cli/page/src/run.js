// A run from the page: Run disabled at once (no double start), POST /api/runs, progress with
// elapsed time per policy from the event stream, Cancel (DELETE /api/runs/{id}, also when the
// page closes), then the document kept in the history and shown.

import { state, showError } from "./editor.js";
import * as history from "./history.js";
import { show } from "./view.js";
import { SESSION } from "./session.js";
import { currentTitle } from "./title.js";

const $ = (id) => document.getElementById(id);
let active = null; // {id, source, timer}


const headers = { "Content-Type": "application/json" };

/** Starts a run of the TOML as it stands; `done(entry)` gets the kept history entry. */
export async function start(done) {
  if (active || $("run").disabled) return;
  $("run").disabled = true;
  $("run-error").textContent = "";
  const runs = Number($("runs").value) || 1;
  const body = { scenario: state.text };
  if (runs > 1) body.runs = runs;
  let r, reply;
  try {
    r = await fetch("/api/runs", { method: "POST", headers, body: JSON.stringify(body) });
    reply = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  } catch (e) {
    reply = { error: `the lab did not answer: ${e.message}` };
  }
  if (!r || !r.ok) {
    showError(reply.error || `HTTP ${r.status}`);
    $("run").disabled = false;
    return;
  }
  watch(reply.id, runs, done);
}

function watch(id, runs, done) {
  const t0 = performance.now();
  let policyStart = t0, finished = 0, total = 0;
  const source = new EventSource(`/api/runs/${id}/events`);
  const tick = () => {
    const now = performance.now();
    const of = total ? ` of ${total}` : "";
    $("progress").max = total || 1;
    $("progress").value = finished;
    $("status").textContent = `Run #${id}: policy ${Math.min(finished + 1, total || 1)}${of} · ${((now - policyStart) / 1000).toFixed(1)} s on it · ${((now - t0) / 1000).toFixed(1)} s in all`;
  };
  active = { id, source, timer: setInterval(tick, 200) };
  $("cancel").disabled = false;
  $("progress").hidden = false;
  tick();
  const reports = [];
  source.addEventListener("policy", (e) => {
    const d = JSON.parse(e.data);
    finished = d.index + 1;
    total = d.total;
    policyStart = performance.now();
    reports[d.index] = d.report;
    tick();
    show([partial(id, runs, reports.filter(Boolean))]);
  });
  source.addEventListener("result", async (e) => {
    const doc = JSON.parse(e.data);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    active.source.close();
    const name = currentTitle();
    const entry = await history.add({ apiId: id, name, toml: state.text, runs, doc, session: SESSION });
    window.history.replaceState(null, "", history.permalink(state.text, runs));
    show([entry]);
    await done(entry);
    stop(`Run #${id}: done in ${secs} s`);
  });
  source.addEventListener("error", (e) => {
    let msg = "the connection to the lab was lost";
    try { msg = JSON.parse(e.data).error; } catch (_) { /* a network error carries no data */ }
    stop(`Run #${id}: failed`);
    $("run-error").textContent = msg;
  });
}

/** A run in progress as a history-like entry: the reports so far, and the scenario's keys the
 * view reads (with the simulator's defaults) until the document arrives. */
function partial(id, runs, reports) {
  const o = state.obj || {};
  const out = o.outage || {};
  const scenario = {
    seed: o.seed ?? 1, duration: o.duration ?? "2m",
    outage: { kind: out.kind ?? "pause", start: out.start ?? "15s", end: out.end ?? "45s" },
  };
  return { apiId: id, label: `#${id} (running)`, name: currentTitle(), seed: scenario.seed, runs, doc: { scenario, policies: reports } };
}

function stop(status) {
  if (!active) return;
  active.source.close();
  clearInterval(active.timer);
  active = null;
  $("status").textContent = status;
  $("progress").hidden = true;
  $("cancel").disabled = true;
  $("run").disabled = false;
}

/** Cancels the active run: the server stops it; the page stops listening either way. */
export async function cancel() {
  if (!active) return;
  const id = active.id;
  stop(`Run #${id}: cancelling`);
  const r = await fetch(`/api/runs/${id}`, { method: "DELETE", headers }).catch(() => null);
  $("status").textContent = r && r.ok ? `Run #${id}: cancelled` : `Run #${id}: cancelled here (the server stops a run nobody listens to)`;
}

/** When the page goes away: cancel the active run without waiting for the answer. */
export function onLeave() {
  if (!active) return;
  fetch(`/api/runs/${active.id}`, { method: "DELETE", headers, keepalive: true }).catch(() => {});
  active.source.close();
}
