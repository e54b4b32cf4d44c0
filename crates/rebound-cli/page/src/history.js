// Run history in the browser (IndexedDB through idb-keyval): each finished run with its
// scenario TOML, policies, seed, replications and document, kept across reloads and shared by
// the tabs (each change is announced on a BroadcastChannel); the permalink (the scenario in
// the URL fragment).

import { get, update } from "idb-keyval";

const KEY = "rebound-lab-runs";
/** Most runs kept; the oldest is dropped past it. */
export const KEPT = 30;

const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("rebound-lab-history") : null;

/** Calls `fn()` when another tab changes the history. */
export function onChange(fn) {
  if (channel) channel.onmessage = () => fn();
}

const changed = () => channel?.postMessage("changed");

/** A run id as a label: the lab's ids are UUIDv7s, unique across its restarts; the last
 * 8 of their hex digits are random and tell runs apart. */
export function label(apiId) {
  return `#${String(apiId).replace(/-/g, "").slice(-8)}`;
}

/** Every kept run, newest first. */
export async function all() {
  return (await get(KEY)) || [];
}

/** Keeps `entry` ({apiId, name, toml, runs, doc}); returns it with its `key` and `label`. */
export async function add(entry) {
  const key = Date.now() + Math.random();
  const full = { ...entry, key, at: new Date().toISOString(), label: label(entry.apiId), seed: entry.doc.scenario.seed, policies: entry.doc.policies.map((p) => p.policy) };
  // One transaction: two tabs that finish runs at once both keep theirs.
  await update(KEY, (runs) => [full, ...(runs || [])].slice(0, KEPT));
  changed();
  return full;
}

/** Forgets the run `key`. */
export async function remove(key) {
  await update(KEY, (runs) => (runs || []).filter((r) => r.key !== key));
  changed();
}

const b64 = (s) => btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64 = (s) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

/** The page's URL with `toml` (and `runs` when > 1) in its fragment. */
export function permalink(toml, runs) {
  const url = new URL(location.href);
  url.hash = `s=${b64(toml)}${runs > 1 ? `&runs=${runs}` : ""}`;
  return url.href;
}

/** {toml, runs} from the page's fragment, or null. */
export function fromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.get("s")) return null;
  try {
    return { toml: unb64(params.get("s")), runs: Number(params.get("runs")) || 1 };
  } catch (_) {
    return null;
  }
}
