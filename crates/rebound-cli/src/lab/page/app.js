// Rebound lab page: the scenario form, the policy list, runs over the JSON API and SVG charts.
// Plain JavaScript, no libraries: the binary serves everything, so it works offline.
"use strict";

const COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const FIELDS = [
  ["seed", "Seed", "integer", "the same seed gives the same run"],
  ["duration", "Simulated duration", "duration", "e.g. 2m; at most the lab's bound"],
  ["clients.count", "Clients", "integer", "closed loop: think, send, wait"],
  ["clients.think", "Mean think time", "duration", "exponential, per client"],
  ["clients.timeout", "Client timeout", "duration", "per attempt"],
  ["server.min_delay", "Server delay at or below the limit", "duration", ""],
  ["server.concurrency_limit", "Concurrency limit", "integer", "requests served at min delay"],
  ["server.factor", "Delay factor", "float", "x per k requests above the limit, >= 1"],
  ["server.k", "k", "float", "requests per step of the factor, > 0"],
  ["server.backlog", "Accept backlog while paused", "integer", "connections"],
  ["outage.kind", "Outage", "choice", "none, pause, hard-down or capacity-cut"],
  ["outage.start", "Outage start", "duration", ""],
  ["outage.end", "Outage end", "duration", ""],
  ["outage.slowdown", "Capacity-cut slowdown", "float", "x slower, >= 1"],
];
const KINDS = ["none", "pause", "hard-down", "capacity-cut"];
const $ = (id) => document.getElementById(id);
let defaults = null;
let base = null; // the selected built-in scenario as JSON (keys the form does not show are kept)
let runCount = 0;

function get(obj, path) { return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj); }
function set(obj, path, v) {
  const keys = path.split(".");
  const last = keys.pop();
  keys.reduce((o, k) => (o[k] = o[k] || {}), obj)[last] = v;
}
function esc(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }

// --- TOML of the form -------------------------------------------------------------------
function tomlValue(key, v) {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" && FLOATS.has(key) && Number.isInteger(v)) return v.toFixed(1);
  if (Array.isArray(v)) return "[" + v.map((x) => tomlValue(key, x)).join(", ") + "]";
  return String(v);
}
const FLOATS = new Set(FIELDS.filter((f) => f[2] === "float").map((f) => f[0]));
function toToml(obj) {
  let out = "";
  const tables = [];
  for (const [k, v] of Object.entries(obj)) {
    if (k === "policies") continue;
    if (v && typeof v === "object" && !Array.isArray(v)) tables.push([k, v]);
    else out += `${k} = ${tomlValue(k, v)}\n`;
  }
  for (const [name, t] of tables) {
    out += `\n[${name}]\n`;
    for (const [k, v] of Object.entries(t)) out += `${k} = ${tomlValue(name + "." + k, v)}\n`;
  }
  return out;
}

function buildFields() {
  const box = $("fields");
  box.innerHTML = "";
  for (const [key, label, kind, hint] of FIELDS) {
    const id = "f-" + key.replace(".", "-");
    const dflt = get(defaults.scenarios[0].json, key);
    const wrap = document.createElement("div");
    const unit = kind === "duration" ? "duration" : kind === "choice" ? "kind" : kind === "float" ? "number" : "integer";
    wrap.innerHTML = `<label for="${id}">${esc(label)} <small>(${unit}, default ${esc(dflt)}${hint ? "; " + esc(hint) : ""})</small></label>`;
    let input;
    if (kind === "choice") {
      input = document.createElement("select");
      for (const k of KINDS) input.add(new Option(k, k));
    } else {
      input = document.createElement("input");
      input.type = "text";
      input.inputMode = kind === "duration" ? "text" : "decimal";
    }
    input.id = id;
    input.dataset.key = key;
    input.dataset.kind = kind;
    input.addEventListener("input", fieldsToToml);
    input.addEventListener("change", fieldsToToml);
    wrap.appendChild(input);
    box.appendChild(wrap);
  }
}

function scenarioToFields() {
  for (const input of $("fields").querySelectorAll("[data-key]")) input.value = get(base, input.dataset.key) ?? "";
  $("toml").value = toToml(base);
}

function fieldsToToml() {
  const obj = JSON.parse(JSON.stringify(base));
  for (const input of $("fields").querySelectorAll("[data-key]")) {
    const kind = input.dataset.kind;
    const raw = input.value.trim();
    const n = Number(raw);
    set(obj, input.dataset.key, (kind === "integer" || kind === "float") && raw !== "" && !isNaN(n) ? n : raw);
  }
  $("toml").value = toToml(obj);
}

// --- policies ----------------------------------------------------------------------------
function addPolicy(text) {
  const li = document.createElement("li");
  const n = $("policies").children.length + 1;
  const row = document.createElement("div");
  row.className = "row";
  const input = document.createElement("input");
  input.className = "spec";
  input.type = "text";
  input.value = text || "";
  input.setAttribute("aria-label", `Policy ${n} spec`);
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.setAttribute("aria-label", "Remove this policy");
  remove.addEventListener("click", () => li.remove());
  const err = document.createElement("div");
  err.className = "error spec-error";
  err.setAttribute("role", "alert");
  let timer = null;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => checkSpec(input, err), 250);
  });
  row.append(input, remove);
  li.append(row, err);
  $("policies").appendChild(li);
  return input;
}

async function checkSpec(input, err) {
  const spec = input.value.trim();
  if (!spec) { err.textContent = ""; input.removeAttribute("aria-invalid"); return true; }
  const r = await fetch("/api/specs/check", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ spec }) });
  const body = await r.json();
  if (input.value.trim() !== spec) return false; // typed on meanwhile
  err.textContent = r.ok ? "" : body.error;
  input.setAttribute("aria-invalid", r.ok ? "false" : "true");
  return r.ok;
}

// --- runs --------------------------------------------------------------------------------
async function run(ev) {
  ev.preventDefault();
  $("run-error").textContent = "";
  const policies = [...$("policies").querySelectorAll("input.spec")].map((i) => i.value.trim()).filter(Boolean);
  const r = await fetch("/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ scenario: $("toml").value, policies }) });
  const body = await r.json();
  if (!r.ok) { $("run-error").textContent = body.error; return; }
  const view = newRunView(++runCount, policies.length || defaults.policies.length);
  const reports = [];
  $("status").textContent = `run ${runCount}: started`;
  const source = new EventSource(body.events);
  source.addEventListener("policy", (e) => {
    const d = JSON.parse(e.data);
    reports[d.index] = d.report;
    $("status").textContent = `run ${view.n}: ${reports.filter(Boolean).length} of ${d.total} policies`;
    drawRun(view, null, reports.filter(Boolean));
  });
  source.addEventListener("result", (e) => {
    source.close();
    const doc = JSON.parse(e.data);
    $("status").textContent = `run ${view.n}: done`;
    drawRun(view, doc, doc.policies);
  });
  source.addEventListener("error", (e) => {
    source.close();
    let msg = "the connection to the lab was lost";
    try { msg = JSON.parse(e.data).error; } catch (_) { /* a network error has no data */ }
    $("status").textContent = `run ${view.n}: failed`;
    view.el.querySelector(".run-error").textContent = msg;
  });
}

function newRunView(n, total) {
  const el = document.createElement("article");
  el.className = "run";
  el.setAttribute("aria-label", `Run ${n}`);
  el.innerHTML = `<h3>Run ${n}</h3><p class="error run-error" role="alert"></p><div class="summary"></div><div class="charts"></div>`;
  $("runs").prepend(el);
  return { n, el, total };
}

function parseDur(s) {
  const units = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86400 };
  let total = 0;
  for (const [, num, unit] of String(s).matchAll(/([\d.]+)\s*([a-zµ]+)/g)) total += Number(num) * (units[unit] ?? 0);
  return total;
}

function drawRun(view, doc, reports) {
  const scenario = doc ? doc.scenario : null;
  const outage = scenario && scenario.outage.kind !== "none" ? [parseDur(scenario.outage.start), parseDur(scenario.outage.end)] : null;
  view.el.querySelector(".summary").innerHTML = summaryTable(reports);
  const charts = view.el.querySelector(".charts");
  charts.innerHTML = "";
  const metric = (f) => reports.map((r, i) => ({ name: r.policy, color: COLORS[i % COLORS.length], pts: r.series.map((p) => [p.t + 1, f(p)]) }));
  charts.append(
    chart("Goodput (successful requests per second)", "OK req/s", metric((p) => p.ok), outage),
    chart("Server concurrency (requests in flight)", "requests", metric((p) => p.concurrency), outage),
    chart("Attempts sent per second (first tries and retries)", "attempts/s", metric((p) => p.sent), outage),
  );
  const services = (reports[0] && reports[0].services) || [];
  if (services.length === 0) return;
  view.el.querySelector(".summary").innerHTML += amplificationTable(reports);
  const at = (r, name) => (r.services || []).find((s) => s.name === name) || { series: [] };
  const perService = (name, f) => reports.map((r, i) => ({ name: r.policy, color: COLORS[i % COLORS.length], pts: at(r, name).series.map((p) => [p.t + 1, f(p)]) }));
  for (const svc of services) {
    charts.append(
      chart(`${svc.name}: goodput (answered OK per second)`, "OK/s", perService(svc.name, (p) => p.ok), outage),
      chart(`${svc.name}: arrivals per second (first attempts and retries)`, "attempts/s", perService(svc.name, (p) => p.first + p.retries), outage),
    );
  }
}

function amplificationTable(reports) {
  const names = reports[0].services.map((s) => s.name);
  const head = reports.map((r) => `<th scope="col">${esc(r.policy)}</th>`).join("");
  const rows = names.map((n) => `<tr data-service="${esc(n)}"><td>${esc(n)}</td>` + reports.map((r) => {
    const s = (r.services || []).find((x) => x.name === n);
    return `<td>${s ? s.amplification.toFixed(2) : "-"}</td>`;
  }).join("") + "</tr>").join("");
  return `<table class="amplification"><caption class="hint">Amplification: attempts that reached each service per user request.</caption>` +
    `<thead><tr><th scope="col">service</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function summaryTable(reports) {
  const rows = reports.map((r) => `<tr data-policy="${esc(r.policy)}"><td>${esc(r.policy)}</td>` +
    `<td class="${r.recovered ? "yes" : "no"} recovered">${r.recovered ? "yes" : "no"}</td>` +
    `<td>${r.recovery_s == null ? "-" : r.recovery_s.toFixed(0)}</td><td>${r.peak_concurrency}</td>` +
    `<td>${r.amplification.toFixed(2)}</td><td>${r.total_wait_s.toFixed(0)}</td></tr>`).join("");
  return `<table><caption class="hint">Recovered: goodput back to >= 90 % of before the outage, and it stays.</caption>` +
    `<thead><tr><th scope="col">policy</th><th scope="col">recovered</th><th scope="col">recovery_s</th>` +
    `<th scope="col">peak_concurrency</th><th scope="col">amplification</th><th scope="col">total_wait_s</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>`;
}

// --- charts ------------------------------------------------------------------------------
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function chart(title, yLabel, lines, shade) {
  const W = 560, H = 250, L = 60, R = 10, T = 10, B = 36;
  const xs = lines.flatMap((l) => l.pts.map((p) => p[0]));
  const x0 = Math.min(0, ...xs), x1 = Math.max(1, ...xs);
  const y1 = niceMax(Math.max(0, ...lines.flatMap((l) => l.pts.map((p) => p[1]))));
  const sx = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => H - B - (y / y1) * (H - T - B);
  let svg = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" tabindex="0" role="img" aria-label="${esc(title)}: one line per policy; arrow keys read values">`;
  if (shade) svg += `<rect class="outage" x="${sx(shade[0])}" y="${T}" width="${sx(shade[1]) - sx(shade[0])}" height="${H - T - B}" fill="#bbb" fill-opacity="0.35"><title>outage</title></rect>`;
  for (let i = 0; i <= 4; i++) {
    const y = (y1 * i) / 4;
    svg += `<line x1="${L}" x2="${W - R}" y1="${sy(y)}" y2="${sy(y)}" stroke="#eee"/><text x="${L - 6}" y="${sy(y) + 4}" text-anchor="end" font-size="11">${+y.toPrecision(3)}</text>`;
    const x = x0 + ((x1 - x0) * i) / 4;
    svg += `<text x="${sx(x)}" y="${H - B + 15}" text-anchor="middle" font-size="11">${Math.round(x)}</text>`;
  }
  svg += `<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#444"/><line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#444"/>`;
  svg += `<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle" font-size="11">simulated time (s); outage shaded</text>`;
  svg += `<text transform="translate(14 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle" font-size="11">${esc(yLabel)}</text>`;
  for (const l of lines) {
    const d = l.pts.map((p, i) => `${i ? "L" : "M"}${sx(p[0]).toFixed(1)} ${sy(p[1]).toFixed(1)}`).join("");
    svg += `<path class="series" data-name="${esc(l.name)}" d="${d}" fill="none" stroke="${l.color}" stroke-width="1.8"><title>${esc(l.name)}</title></path>`;
  }
  svg += `<line class="cursor" y1="${T}" y2="${H - B}" stroke="#333" stroke-dasharray="3 3" visibility="hidden"/></svg>`;
  const fig = document.createElement("figure");
  const legend = lines.map((l) => `<span style="--c:${l.color}">${esc(l.name)}</span>`).join("");
  fig.innerHTML = `<figcaption>${esc(title)}</figcaption>${svg}<div class="legend">${legend}</div><div class="tip" role="status"></div>`;
  hover(fig, lines, { sx, x0, x1, L, R, W });
  return fig;
}

function hover(fig, lines, g) {
  const svg = fig.querySelector("svg"), tip = fig.querySelector(".tip"), cursor = fig.querySelector(".cursor");
  const n = Math.max(0, ...lines.map((l) => l.pts.length));
  let index = -1;
  const show = (i) => {
    if (n === 0) return;
    index = Math.max(0, Math.min(n - 1, i));
    const x = lines.find((l) => l.pts[index])?.pts[index][0] ?? 0;
    const px = g.sx(x);
    cursor.setAttribute("x1", px); cursor.setAttribute("x2", px); cursor.setAttribute("visibility", "visible");
    tip.textContent = `t = ${x} s\n` + lines.map((l) => `${l.name}: ${l.pts[index] ? l.pts[index][1] : "-"}`).join("\n");
    tip.style.display = "block";
    const scale = svg.getBoundingClientRect().width / g.W || 1;
    tip.style.left = `${Math.min(px * scale + 12, svg.getBoundingClientRect().width - 200)}px`;
    tip.style.top = "24px";
  };
  const hide = () => { tip.style.display = "none"; cursor.setAttribute("visibility", "hidden"); };
  svg.addEventListener("mousemove", (e) => {
    const rect = svg.getBoundingClientRect();
    const x = ((e.clientX - rect.left) / rect.width) * g.W;
    const t = g.x0 + ((x - g.L) / (g.W - g.L - g.R)) * (g.x1 - g.x0);
    show(Math.round(t) - 1);
  });
  svg.addEventListener("mouseleave", hide);
  svg.addEventListener("blur", hide);
  svg.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[e.key];
    if (step) { e.preventDefault(); show((index < 0 ? 0 : index) + step); }
    if (e.key === "Escape") hide();
  });
}

// --- start -------------------------------------------------------------------------------
async function init() {
  defaults = await (await fetch("/api/defaults")).json();
  for (const [i, s] of defaults.scenarios.entries()) $("builtin").add(new Option(s.name, String(i)));
  buildFields();
  const pick = () => {
    const chosen = defaults.scenarios[Number($("builtin").value)];
    base = JSON.parse(JSON.stringify(chosen.json));
    scenarioToFields();
    // A service graph has no form: its TOML (with the example's comments) is what runs.
    $("fields").hidden = chosen.graph;
    $("graph-note").hidden = !chosen.graph;
    $("toml").value = chosen.toml;
  };
  $("builtin").addEventListener("change", pick);
  pick();
  for (const p of defaults.policies) addPolicy(p);
  $("add-policy").addEventListener("click", () => addPolicy("").focus());
  $("run-form").addEventListener("submit", run);
}
init();
