import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { dateTime, timeLabel } from "../format.ts";

/** One line of a chart; with `min` and `max` (bucketed stats) the spread is drawn as a band around it. */
export interface ChartLine {
  label: string;
  values: (number | null)[];
  min?: (number | null)[];
  max?: (number | null)[];
}

/** Lines over shared timestamps (ms). */
export interface ChartData {
  x: number[];
  lines: ChartLine[];
}

export interface ChartProps {
  data: ChartData;
  /** The time range shown (ms), even where there is no data. */
  range: [number, number];
  height?: number;
  format?: (v: number) => string;
  /** Called with a dragged range (ms): the page reads that range again, in more detail. */
  onZoom?: (start: number, end: number) => void;
  onReset?: () => void;
  label: string;
  /**
   * Raw points are joined across gaps. Otherwise (bucketed stats) a gap of up to three empty
   * buckets is bridged (data sparser than the buckets) and a longer one shown (no data then).
   */
  spanGaps?: boolean;
  /** Small multiples: no legend under the chart. */
  compact?: boolean;
  /** Horizontal dashed lines, e.g. a trigger's thresholds; the scale includes them. */
  thresholds?: number[];
  /** Vertical marks (ms), e.g. when alerts fired. */
  markers?: number[];
}

/**
 * What a chart drew, kept on its element (`.uplot`) as `plotted`: the time axis in seconds and
 * each drawn line's values (band edges aside), so that tests, and anyone checking a chart, can
 * compare it with what the interfaces answered.
 */
export interface PlottedData {
  x: ArrayLike<number>;
  lines: { label: string; values: ArrayLike<number | null | undefined> }[];
}

/** Series colours, chosen to stay apart in light and dark themes. */
export const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#db2777", "#7c3aed", "#0891b2", "#dc2626", "#65a30d", "#9333ea", "#0d9488"];

/** A colour variable of the style sheet as the canvas needs it: resolved for the current theme (light-dark()). */
function cssColor(name: string, fallback: string): string {
  const probe = document.createElement("span");
  probe.style.display = "none";
  probe.style.color = `var(${name}, ${fallback})`;
  document.body.appendChild(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color || fallback;
}

function withAlpha(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** uPlot's options and data for the lines: each line is one series, or three (value, min, max) with a band. */
function build(p: ChartProps, width: number): { opts: uPlot.Options; data: uPlot.AlignedData; hidden: number[] } {
  const axisColor = cssColor("--muted", "#5b6573");
  const gridColor = cssColor("--border", "#dfe3e8");
  const fmt = p.format ?? ((v: number) => String(v));
  const series: uPlot.Series[] = [{ label: "Time", value: (_u, v) => (v == null ? "—" : dateTime(v * 1000)) }];
  const data: (number | null)[][] = [p.data.x.map((t) => t / 1000)];
  const bands: uPlot.Band[] = [];
  const hidden: number[] = [];
  // Gaps are canvas pixel spans; a bucket is the plot's width over the number of buckets.
  const gaps: uPlot.Series.GapsRefiner = (u, _s, _i0, _i1, found) => {
    const bucket = u.bbox.width / Math.max(1, u.data[0].length);
    return found.filter(([from, to]) => to - from > 4 * bucket);
  };
  const joins = p.spanGaps ? { spanGaps: true } : { gaps };
  p.data.lines.forEach((line, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    series.push({ label: line.label, stroke: color, width: 1.6, ...joins, points: { show: false }, value: (_u, v) => (v == null ? "—" : fmt(v)) });
    data.push(line.values);
    if (line.min && line.max) {
      const at = series.length;
      series.push({ label: `${line.label} max`, stroke: "transparent", width: 0, points: { show: false }, ...joins });
      series.push({ label: `${line.label} min`, stroke: "transparent", width: 0, points: { show: false }, ...joins });
      data.push(line.max, line.min);
      bands.push({ series: [at, at + 1], fill: withAlpha(color, 0.14) });
      hidden.push(at, at + 1);
    }
  });
  const span = p.range[1] - p.range[0];
  // 24-hour times; the date only where the range crosses days.
  const timeAxis = (_u: uPlot, splits: number[]) => splits.map((v) => timeLabel(v * 1000, span));
  const axis = (side?: number): uPlot.Axis => ({
    stroke: axisColor,
    grid: { stroke: gridColor, width: 1 },
    ticks: { stroke: gridColor, width: 1 },
    font: "12px system-ui, sans-serif",
    ...(side === undefined ? {} : { side, values: (_u: uPlot, splits: number[]) => splits.map((v) => fmt(v)), size: 64 }),
  });
  const crit = cssColor("--crit", "#b91c1c");
  const thresholds = p.thresholds ?? [];
  const markers = p.markers ?? [];
  const yRange: uPlot.Scale.Range = (_u, lo, hi) => {
    const all = [lo, hi, ...thresholds].filter((v) => v !== null && Number.isFinite(v)) as number[];
    if (all.length === 0) return [0, 1];
    const a = Math.min(...all);
    const b = Math.max(...all);
    const pad = (b - a) * 0.08 || Math.abs(a) * 0.1 || 1;
    return [a - pad, b + pad];
  };
  const decorate = (u: uPlot) => {
    if (thresholds.length === 0 && markers.length === 0) return;
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    ctx.lineWidth = Math.max(1, devicePixelRatio);
    ctx.strokeStyle = crit;
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    for (const t of thresholds) {
      const y = Math.round(u.valToPos(t, "y", true));
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(left + width, y);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.globalAlpha = 0.55;
    for (const m of markers) {
      const x = Math.round(u.valToPos(m / 1000, "x", true));
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
    }
    ctx.restore();
  };
  const opts: uPlot.Options = {
    width,
    height: p.height ?? 260,
    series,
    bands,
    scales: { x: { time: true, range: () => [p.range[0] / 1000, p.range[1] / 1000] }, y: { range: yRange } },
    axes: [{ ...axis(), values: timeAxis }, axis(3)],
    legend: { show: !p.compact, live: true },
    cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 6 } },
    hooks: {
      setSelect: [
        (u) => {
          if (u.select.width < 4 || !p.onZoom) return;
          const start = u.posToVal(u.select.left, "x") * 1000;
          const end = u.posToVal(u.select.left + u.select.width, "x") * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          p.onZoom(Math.round(start), Math.round(end));
        },
      ],
      draw: [
        decorate,
        (u) => {
          // What was drawn, for tests and for people reading the page's DOM.
          let n = 0;
          const lines: PlottedData["lines"] = [];
          for (let s = 1; s < u.data.length; s++) {
            if (hidden.includes(s)) continue;
            for (const v of u.data[s] ?? []) if (v != null) n++;
            lines.push({ label: String(u.series[s]?.label ?? ""), values: u.data[s] ?? [] });
          }
          u.root.dataset.points = String(n);
          (u.root as HTMLElement & { plotted?: PlottedData }).plotted = { x: u.data[0], lines };
        },
      ],
    },
  };
  return { opts, data: data as uPlot.AlignedData, hidden };
}

/** A time series chart (uPlot on a canvas): drag to zoom, double-click to reset. */
export function Chart(p: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>();
  const props = useRef(p);
  props.current = p;

  useEffect(() => {
    const el = host.current!;
    const { opts, data, hidden } = build(p, Math.max(200, el.clientWidth));
    const u = new uPlot(opts, data, el);
    // The band edges are drawn, not listed.
    const rows = u.root.querySelectorAll<HTMLElement>(".u-legend .u-series");
    for (const i of hidden) rows[i]?.style.setProperty("display", "none");
    plot.current = u;
    const reset = () => props.current.onReset?.();
    u.over.addEventListener("dblclick", reset);
    const ro = new ResizeObserver(() => {
      const w = Math.max(200, el.clientWidth);
      if (Math.abs(w - u.width) > 1) u.setSize({ width: w, height: u.height });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.over.removeEventListener("dblclick", reset);
      u.destroy();
      plot.current = undefined;
    };
  }, [p.data, p.range[0], p.range[1], p.height, p.spanGaps, p.compact, p.thresholds?.join(), p.markers?.join()]);

  return <div class="chart" ref={host} role="img" aria-label={p.label} />;
}
