// The service-graph view: users and services as boxes, calls as arrows labelled with the
// call's policy and, after a run, the attempts per second and amplification at the callee; the
// service in outage marked. Layout by dagre (a kept Sugiyama layered layout); drawing is plain
// SVG from its coordinates.

import dagre from "@dagrejs/dagre";
import { shortLabel } from "./palette.js";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** Nodes and edges of a parsed scenario: [{id, label, sub}], [{from, to, policy, timeout}]. */
export function topology(obj, usersPolicy) {
  const services = Array.isArray(obj.service) ? obj.service : [];
  const clients = obj.clients || {};
  const users = clients.rate ? `users: ${clients.rate} open loop` : `users: ${clients.count ?? 1000} closed loop`;
  const nodes = [{ id: "\u0000users", label: users, sub: "" }];
  const edges = [];
  if (!services.length) {
    const s = obj.server || {};
    nodes.push({ id: "server", label: "server (S5)", sub: `limit ${s.concurrency_limit ?? 30}, ${s.min_delay ?? "100ms"}` });
    edges.push({ from: "\u0000users", to: "server", policy: usersPolicy, timeout: clients.timeout ?? "2s" });
    return { nodes, edges };
  }
  for (const s of services) {
    nodes.push({ id: String(s.name), label: String(s.name), sub: `${s.workers ?? 64} workers, queue ${s.queue ?? 256}` });
    for (const c of Array.isArray(s.call) ? s.call : []) {
      edges.push({ from: String(s.name), to: String(c.to), policy: c.policy || "constant:max-retries=0", timeout: c.timeout || clients.timeout || "2s" });
    }
  }
  const first = clients.calls || services[0].name;
  edges.unshift({ from: "\u0000users", to: String(first), policy: usersPolicy, timeout: clients.timeout ?? "2s" });
  return { nodes, edges };
}

/** The outage's target name and a label, or null. */
export function outageOf(obj) {
  const o = obj.outage || {};
  const kind = o.kind ?? "pause";
  if (kind === "none") return null;
  const services = Array.isArray(obj.service) ? obj.service : [];
  const target = services.length ? String(o.service ?? services[services.length - 1].name) : "server";
  const what = kind === "capacity-cut" ? `${o.slowdown ?? 10}× slower` : kind;
  return { target, label: `outage: ${what} ${o.start ?? "15s"}–${o.end ?? "45s"}` };
}

/** Below this width (CSS px) the graph is laid out top to bottom: at a phone's 390 px a
 * left-to-right chain of four boxes would be scaled to an unreadable strip. */
export const VERTICAL_BELOW = 640;

/** Draws the graph into `box` as SVG; `stats` maps a service name to {rate, amplification}.
 * Left to right, or top to bottom when `box` is narrower than [`VERTICAL_BELOW`]. */
export function drawGraph(box, obj, usersPolicy, stats) {
  const { nodes, edges } = topology(obj, usersPolicy);
  const g = new dagre.graphlib.Graph({ multigraph: true });
  const vertical = box.clientWidth > 0 && box.clientWidth < VERTICAL_BELOW;
  g.setGraph({ rankdir: vertical ? "TB" : "LR", nodesep: 30, ranksep: vertical ? 50 : 70, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const outage = outageOf(obj);
  for (const n of nodes) {
    if (outage && outage.target === n.id) n.sub = outage.label;
    g.setNode(n.id, { width: Math.max(120, 8 * Math.max(n.label.length, n.sub.length * 0.85, 14)), height: 46, ...n });
  }
  edges.forEach((e, i) => {
    if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to, { width: 170, height: 34, labelpos: "c", ...e }, "e" + i);
  });
  dagre.layout(g);
  const { width, height } = g.graph();
  let svg = `<svg class="graph${vertical ? " vertical" : ""}" viewBox="0 0 ${width} ${height}" width="${width}" role="img" aria-label="Service graph: ${nodes.length} boxes, ${g.edgeCount()} calls">`;
  svg += `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#333"/></marker></defs>`;
  for (const ref of g.edges()) {
    const e = g.edge(ref);
    const d = e.points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join("");
    const st = stats && stats[e.to];
    const line2 = st ? `${st.rate.toFixed(0)} att/s · ×${st.amplification.toFixed(2)}` : `timeout ${e.timeout}`;
    svg += `<g class="edge" data-from="${esc(e.from.replace("\u0000", ""))}" data-to="${esc(e.to)}"><path d="${d}" fill="none" stroke="#333" stroke-width="1.5" marker-end="url(#arrow)"/>`;
    svg += `<title>${esc(e.policy)} (timeout ${esc(e.timeout)})</title>`;
    svg += `<text x="${e.x}" y="${e.y - 4}" text-anchor="middle" font-size="11" class="edge-policy">${esc(shortLabel(e.policy))}</text>`;
    svg += `<text x="${e.x}" y="${e.y + 10}" text-anchor="middle" font-size="11" class="edge-stats">${esc(line2)}</text></g>`;
  }
  for (const id of g.nodes()) {
    const n = g.node(id);
    const down = outage && outage.target === id;
    const x = n.x - n.width / 2, y = n.y - n.height / 2;
    svg += `<g class="node${down ? " down" : ""}" data-name="${esc(id.replace("\u0000", ""))}">`;
    svg += `<rect x="${x}" y="${y}" width="${n.width}" height="${n.height}" rx="6" fill="${down ? "#fde0d9" : "#f4f6f8"}" stroke="${down ? "#b2182b" : "#555"}" stroke-width="${down ? 2.5 : 1}"${down ? ' stroke-dasharray="6 3"' : ""}/>`;
    svg += `<text x="${n.x}" y="${n.y - 4}" text-anchor="middle" font-size="13" font-weight="600">${esc(n.label)}</text>`;
    svg += `<text x="${n.x}" y="${n.y + 12}" text-anchor="middle" font-size="11">${esc(n.sub)}</text></g>`;
  }
  box.innerHTML = svg + "</svg>";
}
