// Time-series charts by Apache ECharts (SVG renderer): a shared crosshair and zoom across every
// chart on the page (echarts.connect), a legend listing every line (a list that scrolls, each
// entry a toggle, the full spec on hover), the outage shaded, tooltips with the time in seconds,
// arrow keys to read values, SVG and PNG export of a figure that stands alone (title, scenario,
// axis units, the full legend).

import * as echarts from "echarts/core";
import { LineChart } from "echarts/charts";
import { GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, MarkAreaComponent, AriaComponent, TitleComponent } from "echarts/components";
import { SVGRenderer } from "echarts/renderers";

echarts.use([LineChart, TitleComponent, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, MarkAreaComponent, AriaComponent, SVGRenderer]);

const GROUP = "rebound-lab";

/** Metrics a chart can show: where each comes from in the `storm --json` document. */
export const METRICS = {
  goodput: { label: "Goodput", unit: "OK requests/s", edge: (p) => p.ok, service: (p) => p.ok },
  attempts: { label: "Attempts", unit: "attempts/s (first tries, retries, hedges)", edge: (p) => p.sent, service: (p) => p.first + p.retries + (p.hedges || 0) },
  retries: { label: "Retries", unit: "retries/s arriving", service: (p) => p.retries },
  timeouts: { label: "Timeouts", unit: "attempts timed out /s", edge: (p) => p.timedout, service: (p) => p.timedout },
  shed: { label: "Shed", unit: "arrivals refused /s (queue full)", service: (p) => p.shed },
  queue: { label: "Queue", unit: "requests waiting (end of second)", edge: (p) => p.concurrency, service: (p) => p.queue },
  in_flight: { label: "In flight", unit: "requests in the service", edge: (p) => p.concurrency, service: (p) => p.in_flight },
  errors: { label: "Errors", unit: "errors/s", edge: (p) => p.errors, service: (p) => p.errors },
  gave_up: { label: "Gave up", unit: "requests abandoned /s", edge: (p) => p.gave_up },
};

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const fmt = (v) => (v == null ? "-" : String(+(+v).toPrecision(4)));
const X_NAME = "simulated time (s)";

/** The tooltip of the lines at one time: `t = 23 s`, then each line's value with the unit. */
export function tooltipText(params, unit) {
  const ps = Array.isArray(params) ? params : [params];
  if (!ps.length) return "";
  const t = ps[0].axisValue ?? ps[0].value?.[0];
  return `t = ${esc(fmt(t))} s<br>` + ps.map((p) => `${p.marker || ""}${esc(p.seriesName)}: ${esc(fmt(p.value?.[1]))}`).join("<br>") + `<br><small>${esc(unit)}</small>`;
}

function series(lines, outage) {
  return lines.map((l, i) => ({
    type: "line", name: l.name, data: l.data, showSymbol: false, symbol: "none",
    lineStyle: { color: l.color, type: l.dash.length ? l.dash : "solid", width: l.width || 1.8, opacity: l.opacity ?? 1 },
    itemStyle: { color: l.color },
    markArea: i === 0 && outage ? { silent: true, itemStyle: { color: "rgba(120,120,120,0.18)" }, data: [[{ xAxis: outage[0], name: "outage" }, { xAxis: outage[1] }]] } : undefined,
  }));
}

/** A chart in `box`: `lines` = [{name, full, color, dash, width, data: [[t, v]]}]; `outage` =
 * [start, end] s; `scenario` names the stack (exports carry it). */
export function chart(box, title, unit, lines, outage, scenario = "") {
  const fig = document.createElement("figure");
  fig.className = "chart";
  const cap = document.createElement("figcaption");
  cap.textContent = `${title} (${unit})`;
  const el = document.createElement("div");
  el.className = "plot";
  el.tabIndex = 0;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", `${title}: one line per policy; arrow keys read values, legend entries toggle lines`);
  const legend = document.createElement("ul");
  legend.className = "legend";
  legend.setAttribute("aria-label", `${title}: lines (select to hide or show)`);
  fig.append(cap, el, legend);
  box.append(fig);
  const c = echarts.init(el, null, { renderer: "svg" });
  c.setOption({
    animation: false,
    aria: { enabled: true },
    grid: { left: 48, right: 12, top: 12, bottom: 64 },
    xAxis: { type: "value", name: X_NAME, nameLocation: "middle", nameGap: 22, min: "dataMin", max: "dataMax" },
    yAxis: { type: "value", min: 0 },
    tooltip: { trigger: "axis", confine: true, textStyle: { fontSize: 11 }, position: (pt, _p, _d, _r, size) => [pt[0] < size.viewSize[0] / 2 ? size.viewSize[0] - size.contentSize[0] - 4 : 4, 4], formatter: (ps) => tooltipText(ps, unit) },
    // Hidden: the list below the chart is the legend (every line, no pages); this one keeps
    // the selection the list toggles.
    legend: { show: false },
    dataZoom: [{ type: "inside", filterMode: "none" }, { type: "slider", height: 16, bottom: 4, filterMode: "none" }],
    series: series(lines, outage),
  });
  for (const l of lines) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.title = l.full;
    b.setAttribute("aria-pressed", "true");
    const dash = l.dash.length ? l.dash.join(" ") : "none";
    b.innerHTML = `<svg width="26" height="8" aria-hidden="true"><line x1="0" y1="4" x2="26" y2="4" stroke="${l.color}" stroke-width="3" stroke-dasharray="${dash}" opacity="${l.opacity ?? 1}"/></svg> ${esc(l.name)}`;
    b.addEventListener("click", () => {
      c.dispatchAction({ type: "legendToggleSelect", name: l.name });
      b.setAttribute("aria-pressed", b.getAttribute("aria-pressed") === "true" ? "false" : "true");
    });
    li.append(b);
    legend.append(li);
  }
  c.group = GROUP;
  echarts.connect(GROUP);
  let at = -1;
  el.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[e.key];
    if (!step) { if (e.key === "Escape") c.dispatchAction({ type: "hideTip" }); return; }
    e.preventDefault();
    const n = Math.max(0, ...lines.map((l) => l.data.length));
    at = Math.max(0, Math.min(n - 1, (at < 0 ? 0 : at) + step));
    c.dispatchAction({ type: "showTip", seriesIndex: 0, dataIndex: at });
  });
  fig.chart = c;
  fig.spec = { title, unit, lines, outage, scenario };
  return fig;
}

/** Disposes the charts inside `box` (before it is emptied). */
export function dispose(box) {
  for (const f of box.querySelectorAll("figure.chart")) f.chart?.dispose();
}

const EXPORT_WIDTH = 960;
const PLOT_HEIGHT = 300;
const LEGEND_ROW = 18;

/** The figure of `fig` as a stand-alone chart: {svg, width, height}. The title and the
 * scenario's name on top, the y axis named with its unit, x in simulated seconds, the outage
 * shaded, and the legend in full below (every line, its full spec), rendered server-side style
 * by ECharts (`ssr`) so the page's own chart is untouched. */
export function exportFigure(fig) {
  const { title, unit, lines, outage, scenario } = fig.spec;
  const top = 70;
  const legendTop = top + PLOT_HEIGHT + 48;
  const width = EXPORT_WIDTH, height = legendTop + LEGEND_ROW * lines.length + 16;
  const c = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  const full = Object.fromEntries(lines.map((l) => [l.name, l.full]));
  const hidden = fig.chart.getOption().legend?.[0]?.selected || {};
  c.setOption({
    animation: false,
    backgroundColor: "#fff",
    title: { text: title, subtext: `scenario: ${scenario || "(unnamed)"}`, left: 12, top: 8, textStyle: { fontSize: 16 }, subtextStyle: { fontSize: 12, color: "#333" } },
    grid: { left: 72, right: 24, top, height: PLOT_HEIGHT },
    xAxis: { type: "value", name: X_NAME, nameLocation: "middle", nameGap: 26, min: "dataMin", max: "dataMax" },
    yAxis: { type: "value", min: 0, name: unit, nameLocation: "middle", nameGap: 48 },
    legend: { type: "plain", orient: "vertical", left: 12, top: legendTop, itemGap: 4, itemWidth: 28, textStyle: { fontSize: 12 }, selected: hidden, formatter: (name) => (full[name] && full[name] !== name ? `${name}: ${full[name]}` : name) },
    series: series(lines, outage),
  });
  const svg = c.renderToSVGString();
  c.dispose();
  return { svg, width, height };
}

/** The chart of `fig` as an SVG document (see [`exportFigure`]). */
export const toSvg = (fig) => exportFigure(fig).svg;

/** The chart of `fig` as a PNG blob: the exported SVG drawn on a canvas at twice its size. */
export function toPng(fig) {
  const { svg, width, height } = exportFigure(fig);
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = width * 2; canvas.height = height * 2;
      const g = canvas.getContext("2d");
      g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
      g.drawImage(img, 0, 0, canvas.width, canvas.height);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png");
    };
    img.onerror = () => reject(new Error("the SVG did not load"));
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  });
}

/** Resizes every chart (after a layout change). */
export function resizeAll(root) {
  for (const f of root.querySelectorAll("figure.chart")) f.chart?.resize();
}
