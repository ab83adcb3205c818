/** Values per equal time bucket (null: no data), drawn as a small line with its area. */
export interface SparklineProps {
  values: readonly (number | null)[];
  width?: number;
  height?: number;
  /** Fixed top of the scale (e.g. 100 for percentages); otherwise the largest value. */
  max?: number;
  label: string;
}

/** Path commands for the points, broken where a bucket has no data. */
export function sparkPath(values: readonly (number | null)[], width: number, height: number, max: number): { line: string; area: string } {
  const n = values.length;
  const dx = n > 1 ? width / (n - 1) : 0;
  const y = (v: number) => height - (Math.max(0, Math.min(v, max)) / max) * (height - 2) - 1;
  let line = "";
  let area = "";
  let run: string[] = [];
  let runStart = 0;
  const flush = (end: number) => {
    if (run.length === 0) return;
    line += `M${run.join("L")}`;
    area += `M${(runStart * dx).toFixed(1)},${height}L${run.join("L")}L${(end * dx).toFixed(1)},${height}Z`;
    run = [];
  };
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      flush(i - 1);
      continue;
    }
    if (run.length === 0) runStart = i;
    run.push(`${(i * dx).toFixed(1)},${y(v).toFixed(1)}`);
  }
  flush(n - 1);
  return { line, area };
}

export function Sparkline({ values, width = 120, height = 26, max, label }: SparklineProps) {
  let top = max ?? 0;
  if (max === undefined) for (const v of values) if (v !== null && v > top) top = v;
  const { line, area } = sparkPath(values, width, height, top > 0 ? top : 1);
  return (
    <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <path class="area" d={area} />
      <path class="line" d={line} />
    </svg>
  );
}
