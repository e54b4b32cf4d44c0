// The scenario editor: the TOML text (the single source of truth), the forms and the policy
// list that edit it key by key, the service-graph view; every edit is checked by the lab
// (check.js: errors at their field, the cost) and reported to the draft (drafts.js).

import { parse } from "smol-toml";
import { setKey } from "./tomltext.js";
import { renderForms } from "./form.js";
import { drawGraph } from "./graph.js";
import { shortLabel } from "./palette.js";
import { schedule, show as showChecked, checkNow } from "./check.js";

const $ = (id) => document.getElementById(id);
// `base`: the text as last loaded or run; the edits since are unsaved (see `dirty`).
export const state = { text: "", base: "", obj: null, bounds: null, defaults: null, stats: null };
const editListeners = [];

/** Calls `fn()` after every edit of the text (typed, through a form, or loaded). */
export function onEdit(fn) {
  editListeners.push(fn);
}

const edited = () => editListeners.forEach((fn) => fn());

/** Whether the text has edits since it was loaded or run. */
export function dirty() {
  return state.text !== state.base;
}

/** Replaces the whole text (a built-in, a permalink, a history entry) and redraws everything;
 * `base` is the text it counts edits from (the loaded text itself unless told). */
export function load(text, base = text) {
  state.text = text;
  state.base = base;
  $("toml").value = text;
  reparse(true);
  edited();
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
  edited();
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
    showChecked(); // the last check's marks, on the fields drawn anew
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
  input.addEventListener("input", writePolicies);
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

/** The text typed into the TOML box: parsed as it changes, forms redrawn, the text untouched. */
export function watchText() {
  let timer = null;
  $("toml").addEventListener("input", () => {
    state.text = $("toml").value;
    edited();
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

/** The cost beside Run and the errors at their fields: the lab checks the run as edited. */
export function estimate() {
  if (state.obj) schedule();
}

/** Shows a run's refusal below Run, and each of its errors at its field (checked again). */
export function showError(message) {
  $("run-error").textContent = message;
  checkNow();
}
