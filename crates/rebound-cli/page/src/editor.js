// The scenario editor: the TOML text (the single source of truth), the forms and the policy
// list that edit it key by key, the service-graph view, the cost estimate, and errors shown at
// the field they concern.

import { parse } from "smol-toml";
import { setKey, keyAtLine } from "./tomltext.js";
import { renderForms, markField, clearFields } from "./form.js";
import { drawGraph } from "./graph.js";
import { shortLabel } from "./palette.js";

const $ = (id) => document.getElementById(id);
export const state = { text: "", obj: null, bounds: null, defaults: null, stats: null };

/** Replaces the whole text (a built-in, a permalink, a history entry) and redraws everything. */
export function load(text) {
  state.text = text;
  $("toml").value = text;
  reparse(true);
}

/** Applies `fn` to the text; `from` is the input being typed in (structural edits pass none). */
function edit(fn, from) {
  try {
    state.text = fn(state.text);
  } catch (e) {
    $("toml-error").textContent = String(e.message || e);
    return;
  }
  $("toml").value = state.text;
  reparse(!from);
}

function reparse(redrawForms) {
  $("toml-error").textContent = "";
  $("toml").removeAttribute("aria-invalid");
  try {
    state.obj = parse(state.text);
  } catch (e) {
    state.obj = null;
    $("toml").setAttribute("aria-invalid", "true");
    $("toml-error").textContent = String(e.message || e);
    $("forms").classList.add("stale");
    return;
  }
  $("forms").classList.remove("stale");
  state.stats = null;
  if (redrawForms) {
    renderForms($("forms"), state.obj, edit);
    renderPolicies();
  }
  redrawGraph();
  estimate();
}

/** Redraws the service graph, with `stats` ({service: {rate, amplification}}) after a run. */
export function redrawGraph(stats) {
  if (!state.obj) return;
  if (stats !== undefined) state.stats = stats;
  const specs = policies();
  const users = specs.length === 1 ? specs[0] : specs.length ? `${specs.length} policies, one run each` : "the 7 default policies";
  drawGraph($("graph"), state.obj, users, state.stats);
}

/** The TOML's `policies`, as written. */
export function policies() {
  const p = state.obj && state.obj.policies;
  return Array.isArray(p) ? p.map(String) : [];
}

function renderPolicies() {
  const list = $("policies");
  list.innerHTML = "";
  for (const p of policies()) addPolicy(p);
  $("policies-note").hidden = policies().length > 0;
}

function writePolicies() {
  const specs = [...$("policies").querySelectorAll("input.policy")].map((i) => i.value.trim()).filter(Boolean);
  edit((t) => setKey(t, {}, "policies", specs.length ? specs : undefined), true);
  $("policies-note").hidden = specs.length > 0;
}

/** Adds a policy row (and writes it to the TOML when `write`). */
export function addPolicy(text, write) {
  const li = document.createElement("li");
  const n = () => [...$("policies").children].indexOf(li) + 1;
  const input = document.createElement("input");
  input.className = "policy spec";
  input.type = "text";
  input.value = text;
  const err = document.createElement("div");
  err.className = "error spec-error";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => { li.remove(); relabel(); writePolicies(); });
  let timer = null;
  input.addEventListener("input", () => {
    writePolicies();
    clearTimeout(timer);
    timer = setTimeout(() => checkSpec(input, err, n()), 250);
  });
  const row = document.createElement("div");
  row.className = "row";
  row.append(input, remove);
  li.append(row, err);
  $("policies").append(li);
  relabel();
  if (write) writePolicies();
  return input;
}

function relabel() {
  [...$("policies").children].forEach((li, i) => {
    const input = li.querySelector("input");
    input.id = `policy-${i + 1}`;
    input.setAttribute("aria-label", `Policy ${i + 1} spec`);
    li.querySelector(".spec-error").id = `policy-${i + 1}-error`;
    input.setAttribute("aria-describedby", `policy-${i + 1}-error`);
    li.querySelector("button").setAttribute("aria-label", `Remove policy ${i + 1}`);
    li.title = shortLabel(input.value || "");
  });
}

async function checkSpec(input, err, n) {
  const spec = input.value.trim();
  if (!spec) { err.textContent = ""; input.removeAttribute("aria-invalid"); return; }
  const r = await fetch("/api/specs/check", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ spec }) });
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (input.value.trim() !== spec) return; // typed on meanwhile
  err.textContent = r.ok ? "" : `Policy ${n}: ${body.error}`;
  input.setAttribute("aria-invalid", r.ok ? "false" : "true");
}

/** The text typed into the TOML box: parsed as it changes, forms redrawn, the text untouched. */
export function watchText() {
  let timer = null;
  $("toml").addEventListener("input", () => {
    state.text = $("toml").value;
    clearTimeout(timer);
    timer = setTimeout(() => reparse(true), 200);
  });
}

const SECS = { ns: 1e-9, us: 1e-6, "µs": 1e-6, ms: 1e-3, s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86400, day: 86400 };
/** Seconds in a humantime duration such as `1m 30s` (0 when unreadable). */
export function seconds(s) {
  let total = 0;
  for (const [, n, unit] of String(s).matchAll(/([\d.]+)\s*([a-zµ]+)/g)) total += Number(n) * (SECS[unit] ?? 0);
  return total;
}

/** The cost estimate beside Run: client-seconds (or open-loop requests) against the lab's bounds. */
export function estimate() {
  const o = state.obj, b = state.bounds;
  if (!o || !b) return;
  const c = o.clients || {};
  const secs = seconds(o.duration ?? "120s");
  const n = policies().length || 7;
  let text, over;
  if (c.rate) {
    const [v, unit] = String(c.rate).split("/");
    const perS = Number(v) / ({ s: 1, m: 60, min: 60, h: 3600 }[unit?.trim()] || 1);
    const req = Math.round(perS * secs);
    over = req > b.max_open_loop_requests;
    text = `${req.toLocaleString("en")} user requests per policy (bound ${b.max_open_loop_requests.toLocaleString("en")})`;
  } else {
    const work = Math.round((c.count ?? 1000) * secs);
    over = work > b.max_client_seconds;
    text = `${work.toLocaleString("en")} client-seconds per policy (bound ${b.max_client_seconds.toLocaleString("en")})`;
  }
  over = over || secs > b.max_duration_s || n > b.max_policies;
  const runs = Math.max(1, Number($("runs").value) || 1);
  const reps = runs > 1 ? ` × ${runs} replications` : "";
  $("estimate").textContent = `Cost: ${text} × ${n} ${n === 1 ? "policy" : "policies"}${reps}; at most ${b.max_wall_s} s of wall-clock time.${over ? " Past the lab's bounds: the run will be refused." : ""}`;
  $("estimate").classList.toggle("over", over);
}

/** Shows a run's refusal at the field it names (and in full, lines kept, below Run). */
export function showError(message) {
  clearFields($("forms"));
  $("run-error").textContent = message;
  const pol = /^policy (\d+)\b/.exec(message);
  if (pol) return markPolicy(Number(pol[1]), message);
  const line = /at line (\d+)/.exec(message);
  if (line) {
    const at = keyAtLine(state.text, Number(line[1]) - 1);
    if (at && at.key === "policies") {
      const text = state.text.split("\n")[Number(line[1]) - 1];
      const i = policies().findIndex((p) => text.includes(JSON.stringify(p)));
      return markPolicy(i + 1 || 1, message);
    }
    if (at && markField(at.where, at.key, message)) return;
  }
  const key = /`((?:clients|server|outage|service(?:\.call)?)\.[a-z_]+|seed|duration)`/.exec(message);
  if (key) {
    const parts = key[1].split(".");
    const name = /\(service `([^`]+)`\)/.exec(message);
    const svcs = (state.obj && state.obj.service) || [];
    const i = name ? svcs.findIndex((s) => s.name === name[1]) : 0;
    const where = parts[0] === "service" ? (parts[1] === "call" ? { service: Math.max(i, 0), call: 0 } : { service: Math.max(i, 0) }) : parts.length > 1 ? { table: parts[0] } : {};
    markField(where, parts[parts.length - 1], message);
  }
}

function markPolicy(n, message) {
  const input = $(`policy-${n}`);
  if (!input) return;
  input.setAttribute("aria-invalid", "true");
  $(`policy-${n}-error`).textContent = message;
}
