/**
 * Definition chunks (chunk format 3, docs/protocol.md "data (v2)"): the definition tags of
 * series that an agent's inputs name in the Prometheus way (scraped, OTLP, StatsD, Influx).
 * One CBOR array of `[type, id, tags]`. The agent buffers one just before the first points of
 * such series, in the same transaction, so the collector sets the tags before it stores points
 * (a query never sees those series without their labels), exactly as its own remote-write and
 * Influx routes do. They hold no points.
 */
import type { Decoder, Encoder } from "cbor-x";
import { metricIdProblem, tagsProblem } from "../metrics/limits.ts";
import { METRIC_TYPES, type MetricType, type Tags } from "../metrics/model.ts";
import { encodeSized } from "./sized-encoding.ts";

export interface SeriesDefinition {
  type: MetricType;
  id: string;
  tags: Tags;
}

export class DefinitionsChunkError extends Error {}

/** A large chunk (a new target's 10,000 series: about 2 MB) gets a buffer of its own (sized-encoding.ts). */
export function encodeDefinitionsChunk(enc: Encoder, defs: readonly SeriesDefinition[]): Uint8Array {
  let size = 16;
  for (const d of defs) {
    size += d.id.length + 16;
    for (const k in d.tags) size += k.length + d.tags[k]!.length + 4;
  }
  return encodeSized(
    enc,
    defs.map((d) => [d.type, d.id, d.tags]),
    size,
  );
}

const isType = (t: unknown): t is MetricType => typeof t === "string" && (METRIC_TYPES as readonly string[]).includes(t);

/** Decodes and checks a definitions chunk: every id and tag set within the limits of every other way in. */
export function decodeDefinitionsChunk(dec: Decoder, body: Uint8Array): SeriesDefinition[] {
  let raw: unknown;
  try {
    raw = dec.decode(body);
  } catch (e) {
    throw new DefinitionsChunkError(`definitions chunk is not valid CBOR: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw) || raw.length === 0) throw new DefinitionsChunkError("a definitions chunk is a non-empty array of [type, id, tags]");
  return raw.map((e: unknown, i) => {
    if (!Array.isArray(e) || e.length !== 3 || !isType(e[0]) || typeof e[1] !== "string" || typeof e[2] !== "object" || e[2] === null || Array.isArray(e[2])) {
      throw new DefinitionsChunkError(`definition ${i}: expected [type, id, tags]`);
    }
    const [type, id, tags] = e as [MetricType, string, Record<string, unknown>];
    for (const v of Object.values(tags)) if (typeof v !== "string") throw new DefinitionsChunkError(`definition ${i}: tag values are strings`);
    const problem = metricIdProblem(id) ?? tagsProblem(tags as Tags, "metric");
    if (problem) throw new DefinitionsChunkError(`definition ${i}: ${problem}`);
    return { type, id, tags: tags as Tags };
  });
}
