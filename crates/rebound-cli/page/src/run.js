// A run from the page: Run disabled at once (no double start), checked first (a run the lab
// would refuse, its cost past the wall-clock bound included, is refused here: POST /api/check),
// POST /api/runs, progress (policy k of n, run j of N, elapsed time) from the event stream,
// Cancel (DELETE /api/runs/{id}, also when the page closes), then the document kept in the
// history and shown. A run that fails or is cancelled greys the results shown before it.

import { state, showError } from "./editor.js";
import { checkNow, request } from "./check.js";
import * as drafts from "./drafts.js";
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
  const checked = await checkNow();
  if (checked && checked.errors.length) {
    $("run-error").textContent = `Not started: the lab would refuse this run.\n${checked.errors.map((e) => e.message).join("\n")}`;
    $("run").disabled = false;
    document.querySelector("[aria-invalid=true]")?.focus();
    return;
  }
  const body = request();
  const runs = Number(body.runs) || 1;
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

/** Greys the results shown (they are not the run just tried), or ungreys them; `partial`:
 * they are the first policies of the run that stopped. */
export function stale(yes, partial = false) {
  for (const id of ["view", "charts"]) $(id).classList.toggle("stale", yes);
  $("stale-note")?.remove();
  if (!yes || !$("view").children.length) return;
  const note = document.createElement("p");
  note.id = "stale-note";
  note.className = "hint";
  note.textContent = partial
    ? "The run stopped: below are only the policies it finished before it failed or was cancelled."
    : "The results below are from an earlier run, not the run that just failed or was cancelled.";
  $("view").before(note);
}

function watch(id, runs, done) {
  const t0 = performance.now();
  const tag = history.label(id);
  const text = state.text;
  let policyStart = t0, finished = 0, total = 0, run = 0;
  const source = new EventSource(`/api/runs/${id}/events`);
  const tick = () => {
    const now = performance.now();
    const of = total ? ` of ${total}` : "";
    $("progress").max = (total || 1) * runs;
    $("progress").value = finished * runs + run;
    const reps = runs > 1 ? ` · run ${Math.min(run + 1, runs)} of ${runs}` : "";
    $("status").textContent = `Run ${tag}: policy ${Math.min(finished + 1, total || 1)}${of}${reps} · ${((now - policyStart) / 1000).toFixed(1)} s on it · ${((now - t0) / 1000).toFixed(1)} s in all`;
  };
  active = { id, tag, source, timer: setInterval(tick, 200) };
  $("status").dataset.run = id;
  $("cancel").disabled = false;
  $("progress").hidden = false;
  tick();
  const reports = [];
  source.addEventListener("progress", (e) => {
    const d = JSON.parse(e.data);
    total = d.total;
    run = d.run;
    if (d.policy - 1 !== finished) policyStart = performance.now();
    finished = d.policy - 1;
    tick();
  });
  source.addEventListener("policy", (e) => {
    const d = JSON.parse(e.data);
    finished = d.index + 1;
    total = d.total;
    run = 0;
    policyStart = performance.now();
    reports[d.index] = d.report;
    tick();
    stale(false);
    show([partial(id, runs, reports.filter(Boolean))]);
  });
  source.addEventListener("result", async (e) => {
    const doc = JSON.parse(e.data);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    active.source.close();
    const name = currentTitle();
    const entry = await history.add({ apiId: id, name, toml: text, runs, doc, session: SESSION });
    window.history.replaceState(null, "", history.permalink(text, runs));
    if (state.text === text) state.base = text; // run: no unsaved edits left
    drafts.save();
    stale(false);
    show([entry]);
    await done(entry);
    stop(`Run ${tag}: done in ${secs} s`);
  });
  source.addEventListener("error", (e) => {
    let msg = "the connection to the lab was lost";
    try { msg = JSON.parse(e.data).error; } catch (_) { /* a network error carries no data */ }
    stop(`Run ${tag}: failed`);
    stale(true, reports.some(Boolean));
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
  return { apiId: id, label: `${history.label(id)} (running)`, name: currentTitle(), seed: scenario.seed, runs, doc: { scenario, policies: reports } };
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
  const { id, tag } = active;
  stop(`Run ${tag}: cancelling`);
  stale(true);
  const r = await fetch(`/api/runs/${id}`, { method: "DELETE", headers }).catch(() => null);
  $("status").textContent = r && r.ok ? `Run ${tag}: cancelled` : `Run ${tag}: cancelled here (the server stops a run nobody listens to)`;
}

/** When the page goes away: cancel the active run without waiting for the answer. */
export function onLeave() {
  if (!active) return;
  fetch(`/api/runs/${active.id}`, { method: "DELETE", headers, keepalive: true }).catch(() => {});
  active.source.close();
}
