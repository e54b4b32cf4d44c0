// Drafts: the scenario as edited, saved to IndexedDB (idb-keyval) for this tab as the user
// types, and brought back when the tab reloads, ahead of the link in the address bar (a run
// puts its permalink there). A tab is known by an id kept in its sessionStorage, which a
// reload keeps and a new tab does not: each tab has its own draft. Loading something else over
// unsaved edits (a built-in, a run's scenario) asks first.

import { get, set, del, keys } from "idb-keyval";
import { state, onEdit, dirty } from "./editor.js";

const $ = (id) => document.getElementById(id);
const PREFIX = "rebound-lab-draft:";
const SAVE_MS = 300;
/** Drafts kept over every tab; the oldest are dropped past it. */
export const KEPT = 20;

function tabId() {
  let id = sessionStorage.getItem("rebound-lab-tab");
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
    sessionStorage.setItem("rebound-lab-tab", id);
  }
  return id;
}

const KEY = PREFIX + tabId();
let timer = null;

/** This tab's draft ({toml, base, runs, builtin, at}), or undefined. */
export async function restore() {
  return get(KEY).catch(() => undefined);
}

/** Saves this tab's draft once the user pauses (every edit, and Replications). */
export function watch() {
  const later = () => { clearTimeout(timer); timer = setTimeout(save, SAVE_MS); };
  onEdit(later);
  $("runs").addEventListener("input", later);
  $("builtin").addEventListener("change", later);
}

/** Saves now (also what a run marks as its base: no unsaved edits left). */
export async function save() {
  clearTimeout(timer);
  const draft = { toml: state.text, base: state.base, runs: $("runs").value, builtin: $("builtin").value, at: Date.now() };
  await set(KEY, draft).catch(() => {});
  prune();
}

async function prune() {
  const all = (await keys().catch(() => [])).filter((k) => String(k).startsWith(PREFIX));
  if (all.length <= KEPT) return;
  const dated = await Promise.all(all.map(async (k) => [k, (await get(k))?.at || 0]));
  dated.sort((a, b) => a[1] - b[1]);
  for (const [k] of dated.slice(0, dated.length - KEPT)) if (k !== KEY) await del(k);
}

/** Whether `what` may replace the editor's text: yes without unsaved edits, else the user says. */
export function mayReplace(what) {
  return !dirty() || window.confirm(`The scenario has edits not run yet. Discard them and load ${what}?`);
}
