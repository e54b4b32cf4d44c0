// The run checked as it is edited: POST /api/check answers with the lab's own validation (the
// CLI's) as a list of {path, message}; each message is shown at its field (a form field, a
// policy row, Replications, else the TOML box) and cleared once the value is fixed. The same
// answer carries the run's cost on this machine: the line beside Run, which says before Run
// when the lab's wall-clock bound would stop the run.

import { state } from "./editor.js";
import { markField, clearFields } from "./form.js";

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 300;
let timer = null;
let asked = 0;
/** The last answer: {ok, errors, cost}, or null before the first. */
export let last = null;

/** Checks the run once the user pauses typing. */
export function schedule() {
  clearTimeout(timer);
  timer = setTimeout(checkNow, DEBOUNCE_MS);
}

/** The request the run would send: the TOML as it stands and the replications. */
export function request() {
  const runs = Number($("runs").value);
  const body = { scenario: state.text };
  if ($("runs").value.trim() !== "" && runs !== 1) body.runs = Number.isFinite(runs) ? runs : $("runs").value;
  return body;
}

/** Checks the run now; resolves to the answer (also kept in `last` and shown). */
export async function checkNow() {
  clearTimeout(timer);
  const mine = ++asked;
  let answer;
  try {
    const r = await fetch("/api/check", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request()) });
    answer = await r.json();
    if (!r.ok) answer = { ok: false, errors: [{ path: "", message: answer.error || `HTTP ${r.status}` }], cost: null };
  } catch (e) {
    answer = { ok: false, errors: [{ path: "", message: `the lab did not answer: ${e.message}` }], cost: null };
  }
  if (mine !== asked) return last; // a newer check is on its way
  last = answer;
  show();
  return answer;
}

/** Where the field of `path` is: {where, key} for the forms, or {policy: n}, or {runs}. */
export function fieldOf(path) {
  const policy = /^policies\[(\d+)\]$/.exec(path);
  if (policy) return { policy: Number(policy[1]) + 1 };
  if (path === "runs") return { runs: true };
  const call = /^service\[(\d+)\]\.call\[(\d+)\]\.([a-z_]+)$/.exec(path);
  if (call) return { where: { service: Number(call[1]), call: Number(call[2]) }, key: call[3] };
  const svc = /^service\[(\d+)\]\.([a-z_]+)$/.exec(path);
  if (svc) return { where: { service: Number(svc[1]) }, key: svc[2] };
  const table = /^(clients|server|outage)\.([a-z_]+)$/.exec(path);
  if (table) return { where: { table: table[1] }, key: table[2] };
  if (/^[a-z_]+$/.test(path)) return { where: {}, key: path };
  return null;
}

function runsError() {
  let el = $("runs-error");
  if (!el) {
    el = document.createElement("p");
    el.id = "runs-error";
    el.className = "error";
    $("runs").setAttribute("aria-describedby", "runs-hint runs-error");
    $("estimate").before(el);
  }
  return el;
}

function clearAll() {
  clearFields($("forms"));
  for (const e of document.querySelectorAll("#policies .spec-error")) e.textContent = "";
  for (const i of document.querySelectorAll("#policies input[aria-invalid]")) i.removeAttribute("aria-invalid");
  runsError().textContent = "";
  $("runs").removeAttribute("aria-invalid");
  $("check-error")?.remove();
}

/** Shows the last answer: every message at its field, the rest under the TOML box. */
export function show() {
  if (!last) return;
  clearAll();
  const rest = [];
  for (const { path, message } of last.errors) {
    const f = fieldOf(path);
    if (f && f.policy) {
      const input = $(`policy-${f.policy}`);
      if (input) {
        input.setAttribute("aria-invalid", "true");
        $(`policy-${f.policy}-error`).textContent = `Policy ${f.policy}: ${message}`;
        continue;
      }
    } else if (f && f.runs) {
      $("runs").setAttribute("aria-invalid", "true");
      runsError().textContent = message;
      continue;
    } else if (f && markField(f.where, f.key, message)) {
      continue;
    }
    rest.push(message);
  }
  if (rest.length) {
    const box = document.createElement("div");
    box.id = "check-error";
    box.className = "error";
    box.textContent = rest.join("\n");
    $("toml-error").after(box);
  }
  cost();
}

/** The cost line beside Run: events and seconds on this machine against the lab's bound. */
function cost() {
  const c = last.cost;
  const el = $("estimate");
  const refused = last.errors.find((e) => /wall-clock bound/.test(e.message));
  if (!c) {
    el.textContent = last.errors.length ? "Cost: not known until the errors marked are fixed." : "";
    el.classList.toggle("over", false);
    return;
  }
  const n = (x) => x.toLocaleString("en", { maximumFractionDigits: 0 });
  const secs = c.seconds < 1 ? "under 1 s" : `about ${n(c.seconds)} s`;
  const what = `${c.policies} ${c.policies === 1 ? "policy" : "policies"} × ${c.runs} ${c.runs === 1 ? "run" : "runs"}`;
  el.textContent = `Cost: ${what}, about ${c.events.toExponential(1)} events: ${secs} on this machine (${(c.events_per_s / 1e6).toFixed(1)} million events/s a core, ${c.cores} ${c.cores === 1 ? "core" : "cores"}); the lab stops a run at ${c.bound_s} s.` +
    (refused ? ` Refused before it starts: at most ${c.runs_that_fit} ${c.runs_that_fit === 1 ? "run" : "runs"} of each policy fit.` : "");
  el.classList.toggle("over", Boolean(refused));
  if (!c.calibrated) {
    el.textContent += " (Still measuring this machine: the figure may change.)";
    clearTimeout(timer);
    timer = setTimeout(checkNow, 1000);
  }
}
