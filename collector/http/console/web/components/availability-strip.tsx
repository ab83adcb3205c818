import { dateTime, duration } from "../format.ts";

/** A stretch of one state. */
export interface AvailabilitySegment {
  start: number;
  end: number;
  state: "up" | "down" | "unknown";
}

/** Availability over a range as a coloured strip: green up, red down, grey unknown. */
export function AvailabilityStrip({ segments, range, label }: { segments: readonly AvailabilitySegment[]; range: [number, number]; label: string }) {
  const span = Math.max(1, range[1] - range[0]);
  const pct = (t: number) => (Math.min(Math.max(t, range[0]), range[1]) - range[0]) / span;
  let up = 0;
  for (const s of segments) if (s.state === "up") up += pct(s.end) - pct(s.start);
  return (
    <div class="strip-row">
      <span class="mono" title={label}>
        {label}
      </span>
      <div class="strip" role="img" aria-label={`${label}: up ${(up * 100).toFixed(1)} % of the range`} data-segments={segments.length}>
        {segments.map((s) => {
          const left = pct(s.start) * 100;
          const width = Math.max(0.15, (pct(s.end) - pct(s.start)) * 100);
          return <span key={s.start} class={`strip-seg ${s.state}`} style={{ left: `${left}%`, width: `${width}%` }} title={`${s.state}: ${dateTime(s.start)} – ${dateTime(s.end)} (${duration(s.end - s.start)})`} />;
        })}
      </div>
      <span class="small muted num">{(up * 100).toFixed(1)} % up</span>
    </div>
  );
}
