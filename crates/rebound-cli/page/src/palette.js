// Series styles: 12 colours, each at least 3:1 against white (WCAG 1.4.11, graphics), paired
// with 4 dash patterns so neighbours differ by dash as well as hue (deuteranopia and protanopia
// collapse some hue pairs). Okabe & Ito's colour-blind-safe set first, then Paul Tol's darker
// tones. A policy keeps its slot across runs and reloads (kept in localStorage).

export const COLORS = [
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#882255",
  "#332288", "#117733", "#8C6D1F", "#AA4499", "#1F6E8C", "#6F4E37",
];
export const DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3]];
const KEY = "rebound-lab-colours";

function load() {
  try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch (_) { return {}; }
}

/** Slots for `specs` (canonical policy specs): a spec seen before keeps its slot; a new one
 * takes the least used slot not taken in this view; two specs never share a slot in one view
 * while fewer than 13 are shown. */
export function slots(specs) {
  const known = load();
  const taken = new Set();
  const out = {};
  for (const s of specs) {
    if (s in known && !taken.has(known[s])) { out[s] = known[s]; taken.add(known[s]); }
  }
  for (const s of specs) {
    if (s in out) continue;
    const uses = COLORS.map((_, i) => Object.values(known).filter((v) => v === i).length);
    let best = -1;
    for (let i = 0; i < COLORS.length; i++) {
      if (taken.has(i)) continue;
      if (best < 0 || uses[i] < uses[best]) best = i;
    }
    if (best < 0) best = Object.keys(out).length % COLORS.length;
    out[s] = best;
    taken.add(best);
    if (!(s in known)) known[s] = best;
  }
  try { localStorage.setItem(KEY, JSON.stringify(known)); } catch (_) { /* private mode */ }
  return out;
}

/** {color, dash} of a slot. */
export const style = (slot) => ({ color: COLORS[slot % COLORS.length], dash: DASHES[slot % DASHES.length] });

const KINDS = { constant: "fixed", exponential: "exp", decorrelated: "decorr", linear: "linear", none: "none" };

/** A short label for a canonical spec (`exponential:base=100ms,factor=2,jitter=full` →
 * `exp 100ms ×2 full`); the full spec goes on hover. */
export function shortLabel(spec) {
  const [kind, rest = ""] = spec.split(/:(.*)/s);
  const parts = [KINDS[kind] || kind];
  const kv = Object.fromEntries(rest.split(",").filter(Boolean).map((p) => p.split(/=(.*)/s)));
  if (kv.base) parts.push(kv.base);
  if (kv.factor) parts.push("×" + (+kv.factor).toPrecision(3).replace(/\.?0+$/, ""));
  if (kv.cap) parts.push("cap " + kv.cap);
  if (kv.jitter) parts.push(kv.jitter.split(":")[0]);
  if (kv["max-retries"]) parts.push("r" + kv["max-retries"]);
  for (const k of ["budget", "throttle", "breaker", "hedge"]) if (kv[k]) parts.push(k);
  const label = parts.join(" ");
  return label.length > 30 ? label.slice(0, 29) + "…" : label;
}

/** WCAG contrast ratio of `hex` against white. */
export function contrast(hex) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = [1, 3, 5].map((i) => lin(parseInt(hex.slice(i, i + 2), 16)));
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (l + 0.05);
}
