// Rebound lab page: wiring. Sources bundled by esbuild into ../app.js (see package.json); the
// binary serves the bundle, so the page works offline.

import { state, load, watchText, addPolicy, estimate } from "./editor.js";
import * as drafts from "./drafts.js";
import * as history from "./history.js";
import * as run from "./run.js";
import { show, drawCharts, graphStats, download, csv, current } from "./view.js";
import { METRICS } from "./charts.js";
import { resizeAll } from "./charts.js";
import { redrawGraph } from "./editor.js";
import { watchTitle } from "./title.js";
import * as advise from "./advise.js";
import * as fit from "./fit.js";
import { dropUnused } from "./tomltext.js";

const $ = (id) => document.getElementById(id);
const DEFAULT_METRICS = ["goodput", "attempts", "shed"];

async function init() {
  const defaults = await (await fetch("/api/defaults")).json();
  state.defaults = defaults;
  state.bounds = defaults.bounds;
  for (const [i, s] of defaults.scenarios.entries()) $("builtin").add(new Option(s.name, String(i)));
  let picked = $("builtin").value;
  $("builtin").addEventListener("change", () => {
    const s = defaults.scenarios[Number($("builtin").value)];
    if (s && !drafts.mayReplace(`the built-in “${s.name}”`)) {
      $("builtin").value = picked; // kept: the edits stay
      return;
    }
    picked = $("builtin").value;
    if (s) load(s.toml);
    $("builtin-note").textContent = s && s.lab_bound
      ? `As shipped, this built-in is past the lab's bounds (\`rebound storm\` runs it; shorten it here to run it in the lab):\n${s.lab_bound}`
      : "";
  });
  for (const [key, m] of Object.entries(METRICS)) {
    const label = document.createElement("label");
    label.innerHTML = `<input type="checkbox" value="${key}"${DEFAULT_METRICS.includes(key) ? " checked" : ""}> ${m.label}`;
    label.title = m.unit;
    $("metrics").append(label);
  }
  $("metrics").addEventListener("change", drawCharts);
  $("scope").addEventListener("change", drawCharts);
  $("graph-policy").addEventListener("change", graphStats);
  watchText();
  $("add-policy").addEventListener("click", () => addPolicy("", true).focus());
  $("run-form").addEventListener("submit", (e) => { e.preventDefault(); run.start(() => renderHistory()); });
  $("runs").addEventListener("input", estimate);
  $("cancel").addEventListener("click", run.cancel);
  window.addEventListener("pagehide", run.onLeave);
  window.addEventListener("resize", () => { resizeAll(document); redrawGraph(); });
  advise.init();
  fit.init();
  exports();
  const linked = history.fromFragment();
  const draft = await drafts.restore();
  if (draft) {
    if (draft.builtin === "link") $("builtin").add(new Option("from the link", "link"), 0);
    $("builtin").value = draft.builtin;
    picked = $("builtin").value;
    $("runs").value = draft.runs;
    load(draft.toml, draft.base);
  } else if (linked) {
    $("builtin").add(new Option("from the link", "link"), 0);
    $("builtin").value = "link";
    picked = "link";
    $("runs").value = linked.runs;
    load(linked.toml);
  } else {
    load(defaults.scenarios[0].toml);
  }
  watchTitle();
  drafts.watch();
  history.onChange(() => renderHistory());
  await renderHistory();
  document.body.dataset.ready = "true";
}

function exports() {
  const text = (name, type, body) => download(name, new Blob([body], { type }));
  const need = (f) => () => { const e = current(); if (e) f(e); };
  $("export-toml").addEventListener("click", need((e) => text("scenario.toml", "application/toml", dropUnused(e.toml))));
  $("export-json").addEventListener("click", need((e) => text("storm.json", "application/json", JSON.stringify(e.doc, null, 2))));
  $("export-csv").addEventListener("click", need((e) => text("series.csv", "text/csv", csv(e))));
  $("permalink").addEventListener("click", need((e) => {
    const url = history.permalink(e.toml, e.runs);
    $("permalink-url").value = url;
    $("permalink-url").hidden = false;
    navigator.clipboard?.writeText(url).catch(() => {});
  }));
}

/** The history list: show, select two to compare, forget. */
async function renderHistory() {
  const runs = await history.all();
  const list = $("history");
  list.innerHTML = "";
  for (const r of runs) {
    const li = document.createElement("li");
    li.dataset.run = r.apiId;
    const pick = document.createElement("input");
    pick.type = "checkbox";
    pick.value = String(r.key);
    pick.setAttribute("aria-label", `Select run ${r.label} to compare`);
    const showBtn = document.createElement("button");
    showBtn.type = "button";
    showBtn.className = "show-run";
    const time = new Date(r.at).toLocaleTimeString("en-GB");
    showBtn.textContent = `${r.label} ${r.name} · seed ${r.seed} · ${r.policies.length} ${r.policies.length === 1 ? "policy" : "policies"}${r.runs > 1 ? ` · ${r.runs} runs` : ""} · ${time}`;
    showBtn.addEventListener("click", () => { run.stale(false); show([r]); });
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "Forget";
    forget.setAttribute("aria-label", `Forget run ${r.label}`);
    forget.addEventListener("click", async () => { await history.remove(r.key); renderHistory(); });
    const reload = document.createElement("button");
    reload.type = "button";
    reload.textContent = "Edit";
    reload.setAttribute("aria-label", `Load run ${r.label}'s scenario into the editor`);
    reload.addEventListener("click", () => { if (drafts.mayReplace(`run ${r.label}'s scenario`)) load(r.toml); });
    li.append(pick, " ", showBtn, " ", reload, " ", forget);
    list.append(li);
  }
  $("history-note").hidden = runs.length > 0;
  const compare = $("compare");
  const picked = () => [...list.querySelectorAll("input:checked")].map((i) => runs.find((r) => String(r.key) === i.value));
  list.onchange = () => { compare.disabled = picked().length !== 2; };
  compare.disabled = true;
  compare.onclick = () => show(picked());
  if (runs.length && !current()) show([runs[0]]);
}

init();
