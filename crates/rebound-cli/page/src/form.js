// The scenario forms: fields for the single-server (S5) scenario, or for a service graph's
// users, services and calls. They read the parsed TOML and write back into the TOML *text*
// (tomltext.js), key by key: the text stays the single source of truth.

import { setKey, addService, removeService, addCall, removeCall } from "./tomltext.js";

// [key, label, kind, unit and default, hint]
const TOP = [
  ["seed", "Seed", "int", "default 1", "the same seed gives the same run"],
  ["duration", "Simulated duration", "duration", "default 2m", "e.g. 90s; at most the lab's bound"],
];
const CLIENTS = [
  ["count", "Users (closed loop)", "int", "default 1000", "each thinks, sends, waits"],
  ["think", "Mean think time", "duration", "default 10s", "exponential, per user"],
  ["timeout", "User timeout", "duration", "default 2s", "per attempt"],
  ["rate", "Open-loop rate", "string", "e.g. 1000/s; none by default", "Poisson arrivals; replaces users and think"],
  ["calls", "Users call", "service", "default: the first service", ""],
  ["give_up_pause", "Pause after giving up", "duration", "default 0s", ""],
];
const SERVER = [
  ["min_delay", "Delay at or below the limit", "duration", "default 100ms", ""],
  ["concurrency_limit", "Concurrency limit", "int", "default 30", "requests served at the minimum delay"],
  ["factor", "Delay factor", "float", "default 1.05", "× per k requests above the limit, ≥ 1"],
  ["k", "k", "float", "default 15", "requests per step of the factor, > 0"],
  ["backlog", "Accept backlog while paused", "int", "default 511", "connections"],
];
const OUTAGE = [
  ["service", "Service", "service", "default: the last service", ""],
  ["kind", "Outage", "choice:none,pause,hard-down,capacity-cut", "default pause", ""],
  ["start", "Start", "duration", "default 15s", ""],
  ["end", "End", "duration", "default 45s", ""],
  ["slowdown", "Slowdown", "float", "default 10", "× slower, capacity-cut only, ≥ 1"],
];
const SERVICE = [
  ["name", "Name", "string", "required", "1 to 64 characters, unique"],
  ["workers", "Workers", "int", "default 64", "1 to 100,000 served at once"],
  ["queue", "Queue", "int", "default 256", "waiting places; past them arrivals are shed"],
  ["service_time", "Service time", "string", "default exponential:10ms", "constant:, exponential:, lognormal:p50=,p99="],
  ["refusal_cost", "Refusal cost", "duration", "default 0s", "processor time per shed arrival"],
  ["deadline_propagation", "Drop requests whose caller gave up", "bool", "default off", ""],
];
const CALL = [
  ["to", "Calls", "service", "required", ""],
  ["policy", "Policy", "spec", "default constant:max-retries=0 (no retries)", "a Rebound spec"],
  ["timeout", "Timeout", "duration", "default: the users' timeout", "per attempt"],
  ["probability", "Probability", "float", "default 1", "0 to 1: the share of requests that make the call"],
];

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const idOf = (where, key) => "f-" + [where.table, where.service, where.call === undefined ? undefined : "call-" + where.call, key]
  .filter((x) => x !== undefined).join("-").replace(/[^A-Za-z0-9-]/g, "-");

/** Renders the forms for `obj` (the parsed TOML) into `box`; `edit(fn)` applies a text edit. */
export function renderForms(box, obj, edit) {
  box.innerHTML = "";
  const graph = Array.isArray(obj.service) && obj.service.length > 0;
  const names = graph ? obj.service.map((s) => s.name) : [];
  box.append(fieldset("Run", {}, TOP, obj, names, edit));
  box.append(fieldset("Users", { table: "clients" }, CLIENTS.filter((f) => graph || f[0] !== "calls"), obj.clients || {}, names, edit));
  if (!graph) box.append(fieldset("Server (S5)", { table: "server" }, SERVER, obj.server || {}, names, edit));
  box.append(fieldset("Outage", { table: "outage" }, OUTAGE.filter((f) => graph || f[0] !== "service"), obj.outage || {}, names, edit));
  if (graph) obj.service.forEach((svc, i) => box.append(serviceForm(svc, i, names, edit)));
  const add = button(graph ? "Add service" : "Make it a service graph (add a service)", () => edit((t) => addService(t, freeName(names), { workers: 8, queue: 64 })));
  add.id = "add-service";
  box.append(add);
}

function freeName(names) {
  for (let i = names.length + 1; ; i++) if (!names.includes("svc" + i)) return "svc" + i;
}

function button(text, onClick, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

function fieldset(title, where, fields, values, names, edit) {
  const fs = document.createElement("fieldset");
  fs.className = "fields";
  fs.innerHTML = `<legend>${esc(title)}</legend>`;
  for (const f of fields) fs.append(field(where, f, values[f[0]], names, edit));
  return fs;
}

function serviceForm(svc, i, names, edit) {
  const fs = fieldset(`Service ${i + 1}: ${svc.name ?? ""}`, { service: i }, SERVICE, svc, names, edit);
  fs.classList.add("service");
  fs.dataset.service = svc.name ?? "";
  const calls = Array.isArray(svc.call) ? svc.call : [];
  calls.forEach((c, j) => {
    const sub = fieldset(`Call ${j + 1} of ${svc.name ?? "service " + (i + 1)}`, { service: i, call: j }, CALL, c, names, edit);
    sub.classList.add("call");
    sub.append(button("Remove call", () => edit((t) => removeCall(t, i, j)), `Remove call ${j + 1} of ${svc.name}`));
    fs.append(sub);
  });
  const target = names.find((n) => n !== svc.name) || svc.name;
  fs.append(
    button("Add call", () => edit((t) => addCall(t, i, target)), `Add a call from ${svc.name}`),
    button("Remove service", () => edit((t) => removeService(t, i)), `Remove service ${svc.name}`),
  );
  return fs;
}

function field(where, [key, label, kind, unit, hint], value, names, edit) {
  const id = idOf(where, key);
  const wrap = document.createElement("div");
  wrap.className = "field";
  wrap.innerHTML = `<label for="${id}">${esc(label)} <small>(${esc(unit)}${hint ? "; " + esc(hint) : ""})</small></label>`;
  let input;
  if (kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === true;
  } else if (kind.startsWith("choice:") || kind === "service") {
    input = document.createElement("select");
    const options = kind === "service" ? names : kind.slice(7).split(",");
    input.add(new Option("(default)", ""));
    for (const o of options) input.add(new Option(o, o));
    if (value !== undefined && !options.includes(String(value))) input.add(new Option(String(value), String(value)));
    input.value = value === undefined ? "" : String(value);
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.value = value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    if (kind === "spec") input.className = "spec";
  }
  input.id = id;
  input.dataset.key = key;
  input.dataset.where = JSON.stringify(where);
  const err = document.createElement("div");
  err.className = "error field-error";
  err.id = id + "-error";
  input.setAttribute("aria-describedby", err.id);
  const write = () => edit((t) => setKey(t, where, key, valueOf(input, kind)), input);
  input.addEventListener(kind === "bool" || input.tagName === "SELECT" ? "change" : "input", write);
  wrap.append(input, err);
  return wrap;
}

function valueOf(input, kind) {
  if (kind === "bool") return input.checked;
  const raw = input.value.trim();
  if (raw === "") return undefined;
  if (kind === "int" || kind === "float") {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw; // the server names the key and the expected type
  }
  return raw;
}

/** Marks the field of `key` in `where` with `message` (lines kept); false if none shows it. */
export function markField(where, key, message) {
  const input = document.getElementById(idOf(where, key));
  if (!input) return false;
  input.setAttribute("aria-invalid", "true");
  document.getElementById(input.id + "-error").textContent = message;
  return true;
}

/** Clears every field's error. */
export function clearFields(box) {
  for (const e of box.querySelectorAll(".field-error")) e.textContent = "";
  for (const i of box.querySelectorAll("[aria-invalid]")) i.removeAttribute("aria-invalid");
}
