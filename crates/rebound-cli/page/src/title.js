// The stack's title: the built-in's name while its TOML is as shipped; once edited, what the
// stack now is (its services, its incident), so that a run, the history and exported charts
// never carry the title of a stack that is no longer the one that ran.

import { outageOf } from "./graph.js";
import { state } from "./editor.js";

/** A title for the parsed scenario `obj`: `front → api → db · db down 15s–45s`. */
export function describe(obj) {
  const services = Array.isArray(obj.service) ? obj.service.map((s) => String(s.name)) : [];
  const stack = services.length
    ? `${services.length === 1 ? "1 service" : `${services.length} services`}: ${services.join(", ")}`
    : "one server (S5)";
  const o = outageOf(obj);
  const kind = (obj.outage || {}).kind ?? "pause";
  const what = { pause: "paused", "hard-down": "down", "capacity-cut": `${(obj.outage || {}).slowdown ?? 10}× slower`, "load-spike": `users' load ×${(obj.outage || {}).factor ?? 2}`, errors: "errors" }[kind] || kind;
  const incident = o ? `${kind === "load-spike" ? what : `${o.target} ${what}`} ${(obj.outage || {}).start ?? "15s"}–${(obj.outage || {}).end ?? "45s"}` : "no incident";
  return `${stack} · ${incident}`;
}

/** The title for `text` (parsed as `obj`): `builtin.name` when `text` is the built-in's TOML
 * unchanged, else [`describe`]'s. */
export function stackTitle(text, obj, builtin) {
  if (builtin && builtin.toml === text) return builtin.name;
  if (!obj) return "scenario (TOML with an error)";
  return describe(obj);
}

/** The title of the editor's stack as it stands (the built-in picked, the text as edited). */
export function currentTitle() {
  const picked = state.defaults?.scenarios?.[Number(document.getElementById("builtin").value)];
  return stackTitle(state.text, state.obj, picked);
}

/** Keeps `#stack-title` on the stack as edited: redrawn with the graph, which the editor
 * redraws on every parse. */
export function watchTitle() {
  const show = () => { document.getElementById("stack-title").textContent = currentTitle(); };
  new MutationObserver(show).observe(document.getElementById("graph"), { childList: true });
  show();
}
