/**
 * Prometheus' staleness marker: the sample value a scraper or remote-write sender writes when a
 * series ends (its target went down, it left the exposition), so that queries stop showing the
 * series at once instead of for the 5-minute lookback. On the wire it is the float64 NaN with
 * the bits 0x7ff0000000000002 (Prometheus' value.StaleNaN); every other NaN is an ordinary value.
 *
 * Inside a JavaScript number the bits cannot be told apart: the runtime keeps one NaN (JavaScript-
 * Core turns every NaN it reads from memory into 0x7ff8000000000000; V8 quiets signalling ones).
 * So the bits are checked where they still exist, in bytes (`isStaleMarkerAt`: remote write's
 * protobuf), and inside Outpost the marker travels as NaN. That is unambiguous because every
 * way in admits no other NaN: the Hawkular writes take finite numbers, remote write and the
 * Influx line protocol skip NaN samples that are not markers, and the agent protocol accepts NaN
 * only as the marker (docs/protocol.md). So a stored NaN is a marker, `isStaleMarker` is a NaN
 * test, and every reader that is not PromQL leaves such points out (docs/prometheus.md,
 * "Staleness").
 *
 * No imports: the agent, the protocol, the stores and the metrics reads all use this file.
 */

/** The marker's bits, high and low 32-bit words. */
export const STALE_NAN_HI = 0x7ff00000;
export const STALE_NAN_LO = 0x00000002;

/** The marker as a JavaScript number (a NaN; see above for why its bits are not kept). */
export const STALE_NAN: number = new Float64Array(new Uint32Array([STALE_NAN_LO, STALE_NAN_HI]).buffer)[0]!;

/** True for the marker as Outpost carries it (any NaN: no other NaN is stored). */
export function isStaleMarker(v: number): boolean {
  return Number.isNaN(v);
}

/** True when the 8 bytes at `offset` are the marker's float64, little-endian (bit for bit). */
export function isStaleMarkerAt(bytes: Uint8Array, offset: number): boolean {
  return (
    bytes[offset] === 0x02 &&
    bytes[offset + 1] === 0 &&
    bytes[offset + 2] === 0 &&
    bytes[offset + 3] === 0 &&
    bytes[offset + 4] === 0 &&
    bytes[offset + 5] === 0 &&
    bytes[offset + 6] === 0xf0 &&
    bytes[offset + 7] === 0x7f
  );
}

/** Writes the marker's float64 bits, little-endian, at `offset` (for encoders and tests). */
export function writeStaleMarkerAt(bytes: Uint8Array, offset: number): void {
  bytes.set([0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f], offset);
}

/** True when some value is a marker. */
export function hasStaleMarkers(vals: ArrayLike<number>): boolean {
  for (let i = 0; i < vals.length; i++) if (Number.isNaN(vals[i]!)) return true;
  return false;
}

/** A numeric series with its markers taken out: samples, and the times of the markers. */
export interface SplitMarkers {
  ts: Float64Array;
  vals: Float64Array;
  /** Times of the markers, ascending; empty when there were none. */
  stale: Float64Array;
}

const NONE = new Float64Array(0);

/**
 * Separates the markers of ascending samples from the other samples. Without markers the
 * arrays are returned as they are (one scan, no copy).
 */
export function splitStaleMarkers(ts: Float64Array, vals: Float64Array): SplitMarkers {
  if (!hasStaleMarkers(vals)) return { ts, vals, stale: NONE };
  let markers = 0;
  for (let i = 0; i < vals.length; i++) if (Number.isNaN(vals[i]!)) markers++;
  const n = vals.length - markers;
  const outTs = new Float64Array(n);
  const outVals = new Float64Array(n);
  const stale = new Float64Array(markers);
  let k = 0;
  let m = 0;
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    if (Number.isNaN(v)) stale[m++] = ts[i]!;
    else {
      outTs[k] = ts[i]!;
      outVals[k++] = v;
    }
  }
  return { ts: outTs, vals: outVals, stale };
}

/** The samples without the markers (Hawkular reads, stats, alerting, forecasting); point tags follow their points. */
export function withoutStaleMarkers<T extends { ts: Float64Array; values: Float64Array; tags?: readonly unknown[] }>(s: T): T {
  if (!hasStaleMarkers(s.values)) return s;
  const split = splitStaleMarkers(s.ts, s.values);
  const out: T = { ...s, ts: split.ts, values: split.vals };
  if (s.tags) out.tags = s.tags.filter((_t, i) => !Number.isNaN(s.values[i]!));
  return out;
}
