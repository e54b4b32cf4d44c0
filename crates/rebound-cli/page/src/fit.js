// "Fit from traces" (issue 38): a trace file (OTLP JSON or protobuf, Jaeger JSON) goes to the
// lab's `rebound fit` (POST /api/fit); the fitted stack is drawn with the page's graph view,
// with what was read and the fit's notes (its warnings), and "Open as draft" puts the fitted
// TOML, comments and all, into the editor, with Undo.

import { parse } from "smol-toml";
import { state, load } from "./editor.js";
import { drawGraph } from "./graph.js";
import { esc } from "./results.js";

const $ = (id) => document.getElementById(id);
let fitted = null; // the last fit's TOML
let undo = null; // the draft's text before "Open as draft"

/** The most bytes the lab takes (its upload bound, 64 MiB): bigger files are refused here
 * without sending them; `rebound fit FILE` reads any size. */
export const MAX_UPLOAD = 64 * 1024 * 1024;

/** A file name as the lab's `X-Trace-File` header takes it: ASCII letters, digits, `.`, `_`, `-`. */
export const headerName = (name) => (name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "trace-file");

/** Wires the Fit from traces controls. */
export function init() {
  $("fit-file").addEventListener("change", () => {
    const f = $("fit-file").files[0];
    if (f) upload(f);
  });
  $("fit-open").addEventListener("click", open);
  $("fit-undo").addEventListener("click", () => {
    if (undo == null) return;
    load(undo);
    undo = null;
    $("fit-undo").hidden = true;
    $("fit-opened").textContent = "The draft is back as it was.";
  });
}

async function upload(file) {
  $("fit-error").textContent = "";
  $("fit-result").hidden = true;
  fitted = null;
  if (file.size > MAX_UPLOAD) {
    $("fit-error").textContent = `${file.name} is ${(file.size / 1048576).toFixed(1)} MiB, over the lab's 64 MiB bound: run \`rebound fit ${file.name}\` instead`;
    return;
  }
  $("fit-status").textContent = `Fitting ${file.name} (${(file.size / 1024).toFixed(0)} KiB)…`;
  let r, doc;
  try {
    const headers = { "Content-Type": "application/octet-stream", "X-Trace-File": headerName(file.name) };
    r = await fetch("/api/fit", { method: "POST", headers, body: file });
    doc = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  } catch (e) {
    doc = { error: `the lab did not answer: ${e.message}` };
  }
  $("fit-file").value = "";
  if (!r || !r.ok) {
    $("fit-status").textContent = `${file.name}: not fitted`;
    $("fit-error").textContent = doc.error || `HTTP ${r.status}`;
    return;
  }
  $("fit-status").textContent = `${file.name}: fitted`;
  render(doc);
}

function render(doc) {
  fitted = doc.scenario;
  const i = doc.input, u = doc.users;
  $("fit-summary").textContent = `${doc.services.length} services and ${doc.edges.length} calls from ${i.spans_used} spans in ${i.traces} traces (${i.spans_dropped} dropped), window ${doc.window.seconds.toFixed(1)} s; users: ${u.rate_per_s.toFixed(2)}/s calling ${u.entry}.`;
  const notes = doc.notes.length ? doc.notes : ["no warnings: every span was read"];
  $("fit-notes").innerHTML = notes.map((n) => `<li>${esc(n)}</li>`).join("");
  $("fit-result").hidden = false;
  $("fit-undo").hidden = true;
  $("fit-opened").textContent = "";
  const obj = parse(fitted);
  const users = Array.isArray(obj.policies) && obj.policies.length === 1 ? obj.policies[0] : "the users' policies";
  drawGraph($("fit-graph"), obj, users);
}

function open() {
  if (fitted == null) return;
  const before = state.text;
  load(fitted);
  undo = before;
  $("fit-undo").hidden = false;
  $("fit-opened").textContent = "Opened: the draft is the fitted scenario (Undo restores the one before).";
}
