// Time-series charts by Apache ECharts (SVG renderer): a shared crosshair and zoom across every
// chart on the page (echarts.connect), legend toggles, the full spec on hover of a short label,
// the outage shaded, arrow keys to read values, SVG and PNG export.

import * as echarts from "echarts/core";
import { LineChart } from "echarts/charts";
import { GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, MarkAreaComponent, AriaComponent } from "echarts/components";
import { SVGRenderer } from "echarts/renderers";

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, MarkAreaComponent, AriaComponent, SVGRenderer]);

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

/** A chart in `box`: `lines` = [{name, full, color, dash, width, data: [[t, v]]}]; `outage` = [start, end] s. */
export function chart(box, title, unit, lines, outage) {
  const fig = document.createElement("figure");
  fig.className = "chart";
  const cap = document.createElement("figcaption");
  cap.textContent = `${title} (${unit})`;
  const el = document.createElement("div");
  el.className = "plot";
  el.tabIndex = 0;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", `${title}: one line per policy; arrow keys read values, legend entries toggle lines`);
  fig.append(cap, el);
  box.append(fig);
  const full = Object.fromEntries(lines.map((l) => [l.name, l.full]));
  const c = echarts.init(el, null, { renderer: "svg" });
  c.setOption({
    animation: false,
    aria: { enabled: true },
    grid: { left: 48, right: 12, top: 12, bottom: 88 },
    xAxis: { type: "value", name: "simulated s", nameLocation: "middle", nameGap: 22, min: "dataMin", max: "dataMax" },
    yAxis: { type: "value", min: 0 },
    tooltip: { trigger: "axis", confine: true, textStyle: { fontSize: 11 }, position: (pt, _p, _d, _r, size) => [pt[0] < size.viewSize[0] / 2 ? size.viewSize[0] - size.contentSize[0] - 4 : 4, 4], valueFormatter: (v) => (v == null ? "-" : +(+v).toPrecision(4)) },
    legend: { type: "scroll", bottom: 0, itemWidth: 28, itemStyle: { opacity: 0 }, textStyle: { fontSize: 11 }, tooltip: { show: true, formatter: (p) => full[p.name] || p.name } },
    dataZoom: [{ type: "inside", filterMode: "none" }, { type: "slider", height: 16, bottom: 30, filterMode: "none" }],
    series: lines.map((l, i) => ({
      type: "line", name: l.name, data: l.data, showSymbol: false, symbol: "none",
      lineStyle: { color: l.color, type: l.dash.length ? l.dash : "solid", width: l.width || 1.8, opacity: l.opacity ?? 1 },
      itemStyle: { color: l.color },
      markArea: i === 0 && outage ? { silent: true, itemStyle: { color: "rgba(120,120,120,0.18)" }, data: [[{ xAxis: outage[0], name: "outage" }, { xAxis: outage[1] }]] } : undefined,
    })),
  });
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
  return fig;
}

/** Disposes the charts inside `box` (before it is emptied). */
export function dispose(box) {
  for (const f of box.querySelectorAll("figure.chart")) f.chart?.dispose();
}

/** The chart of `fig` as an SVG document. */
export const toSvg = (fig) => fig.chart.renderToSVGString();

/** The chart of `fig` as a PNG blob (its SVG drawn on a canvas at twice the size). */
export function toPng(fig) {
  const svg = toSvg(fig);
  const { width, height } = fig.chart.getDom().getBoundingClientRect();
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
