/**
 * Versioned CBOR messages between agent and collector (docs/protocol.md). Every decoded
 * message is validated before use; a decoding or validation failure is a ProtocolError,
 * never an exception from deep inside a handler. Every point of a data batch is validated:
 * normalized chunks by a fast exact check, anything else by the HTTP write schemas (zod),
 * which convert lenient values or explain the refusal. The small messages the agent also
 * reads are checked by hand in zod-free modules, re-exported here.
 */
import type { Decoder } from "cbor-x";
import * as z from "zod";
import type { BatchRef } from "./envelope.ts";
import { METRIC_TYPES, type MetricType, type MetricWrite } from "../metrics/model.ts";
import { metricIdSchema, pointSchemas } from "../metrics/schemas.ts";
import { type DataBatch, DATA_VERSION_DEFINITIONS, DATA_VERSION_MARKERS, DATA_VERSION_SERIES } from "./data-encode.ts";
import { decodeCbor, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";
import { DefinitionsChunkError, decodeDefinitionsChunk, type SeriesDefinition } from "./definitions-chunk.ts";
import { INSTANCE_ID_PATTERN } from "./identity.ts";
import { isNormalizedChunk } from "./normalized-chunk.ts";
import type { ChunkColumnsReader, DataColumns } from "./chunk-columns.ts";
import { CHUNK_FORMAT, decodeSeriesChunk, SeriesChunkError } from "./series-chunk.ts";

export * from "./control-messages.ts";
export * from "./data-encode.ts";
export * from "./envelope.ts";
export * from "./series-chunk.ts";

const seqSchema = z.number().int().min(1).refine(Number.isSafeInteger, "out of range");
const sessionSchema = z.number().int().min(0).refine(Number.isSafeInteger, "out of range");
const msSchema = z.number().int().refine(Number.isSafeInteger, "out of range");

const dataEnvelope = z.object({
  v: z.union([z.literal(PROTOCOL_VERSION), z.literal(DATA_VERSION_SERIES), z.literal(DATA_VERSION_MARKERS), z.literal(DATA_VERSION_DEFINITIONS)]),
  kind: z.literal("data"),
  session: sessionSchema,
  seq: seqSchema,
  sentAt: msSchema,
  replay: z.boolean(),
  chunks: z.array(z.instanceof(Uint8Array)).min(1, "a batch has at least one chunk"),
  /** Versions 2 and 3 only: the format of each chunk. */
  fmts: z.array(z.union([z.literal(CHUNK_FORMAT.cbor), z.literal(CHUNK_FORMAT.series), z.literal(CHUNK_FORMAT.definitions)])).optional(),
  /** The sending agent's identity (docs/fleet.md); absent from agents that predate it. */
  instance: z.string().regex(INSTANCE_ID_PATTERN, "expected 32 hexadecimal digits").optional(),
});

function writeSchema<T extends MetricType>(type: T) {
  return z.object({ type: z.literal(type), id: metricIdSchema, points: z.array(pointSchemas[type]).min(1) });
}
/** One chunk: the same shape the metrics write API produces after parsing its JSON. */
export const chunkSchema = z.array(z.discriminatedUnion("type", METRIC_TYPES.map(writeSchema) as [ReturnType<typeof writeSchema>])).min(1);

/** A point whose value may also be a staleness marker (NaN), for gauges and counters in version 3. */
function markerPointSchema(type: "gauge" | "counter") {
  const p = pointSchemas[type];
  return p.extend({ value: z.union([p.shape.value, z.nan()]) });
}
function markerWriteSchema<T extends MetricType>(type: T) {
  const points = type === "gauge" || type === "counter" ? markerPointSchema(type) : pointSchemas[type];
  return z.object({ type: z.literal(type), id: metricIdSchema, points: z.array(points).min(1) });
}
/** A chunk of a version 3 batch: staleness markers allowed. */
export const markerChunkSchema = z.array(z.discriminatedUnion("type", METRIC_TYPES.map(markerWriteSchema) as [ReturnType<typeof markerWriteSchema>])).min(1);

/** The first issues of a validation failure, for logs and rejections. */
export function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "message"}: ${i.message}`)
    .join("; ");
}

export interface DecodedBatch extends Omit<DataBatch, "chunks"> {
  writes: MetricWrite[];
  points: number;
  /** Definition tags to set before the points are stored (definitions chunks, format 3). */
  definitions: SeriesDefinition[];
  /** The points, when they were read into columns (decodeData's `columns`); `writes` is then empty. */
  columns?: DataColumns;
}

/**
 * Decodes and validates a data batch and every point in it. With `columns`, a batch whose chunks are all in the agent's own shape
 * (chunk-columns.ts) has its points read into `columns.out` instead of objects: `writes` is then
 * empty and `columns` set. Any other batch is decoded as without it.
 */
export function decodeData(dec: Decoder, payload: Uint8Array, columns?: { reader: ChunkColumnsReader; out: DataColumns }): DecodedBatch {
  const raw = decodeCbor(dec, payload, "data batch");
  const v = versionCheck(raw, "data", [PROTOCOL_VERSION, DATA_VERSION_SERIES, DATA_VERSION_MARKERS, DATA_VERSION_DEFINITIONS]);
  const env = dataEnvelope.safeParse(raw);
  if (!env.success) {
    const r = raw as { session?: unknown; seq?: unknown };
    const ref = sessionSchema.safeParse(r.session).success && seqSchema.safeParse(r.seq).success ? { session: r.session as number, seq: r.seq as number } : undefined;
    throw new ProtocolError(`invalid data batch: ${describeIssues(env.error)}`, ref);
  }
  const { session, seq, sentAt, replay, chunks, fmts, instance } = env.data;
  const ref = { session, seq };
  const withFormats = v !== PROTOCOL_VERSION;
  if (withFormats ? fmts?.length !== chunks.length : fmts !== undefined) {
    throw new ProtocolError(`invalid data batch: ${withFormats ? "fmts must give the format of each chunk" : "fmts is a version 2 field"}`, ref);
  }
  const markers = v === DATA_VERSION_MARKERS || v === DATA_VERSION_DEFINITIONS;
  const writes: MetricWrite[] = [];
  const definitions: SeriesDefinition[] = [];
  let points = 0;
  if (v !== DATA_VERSION_DEFINITIONS && fmts?.includes(CHUNK_FORMAT.definitions)) throw new ProtocolError("invalid data batch: definitions chunks (format 3) come in version 4 batches", ref);
  const who = instance === undefined ? {} : { instance };
  if (columns && readColumns(dec, chunks, fmts, markers, columns, definitions, ref)) {
    return { session, seq, sentAt, replay, writes, points: columns.out.points, definitions, columns: columns.out, ...who };
  }
  for (let i = 0; i < chunks.length; i++) {
    if (fmts?.[i] === CHUNK_FORMAT.definitions) {
      try {
        for (const d of decodeDefinitionsChunk(dec, chunks[i]!)) definitions.push(d);
      } catch (e) {
        throw new ProtocolError(e instanceof DefinitionsChunkError ? `invalid chunk ${i}: ${e.message}` : (e as Error).message, ref);
      }
      continue;
    }
    let value: unknown;
    try {
      value = fmts?.[i] === CHUNK_FORMAT.series ? decodeSeriesChunk(dec, chunks[i]!) : decodeCbor(dec, chunks[i]!, `chunk ${i}`);
    } catch (e) {
      // A corrupt block is refused like any invalid chunk: the agent would send the same bytes again.
      throw new ProtocolError(e instanceof SeriesChunkError ? `invalid chunk ${i}: ${e.message}` : (e as Error).message, ref);
    }
    let chunk: MetricWrite[];
    if (isNormalizedChunk(value, markers)) chunk = value;
    else {
      const parsed = (markers ? markerChunkSchema : chunkSchema).safeParse(value);
      if (!parsed.success) throw new ProtocolError(`invalid chunk ${i}: ${describeIssues(parsed.error)}`, ref);
      chunk = parsed.data as MetricWrite[];
    }
    for (const w of chunk) {
      writes.push(w);
      points += w.points.length;
    }
  }
  return { session, seq, sentAt, replay, writes, points, definitions, ...who };
}

/** The chunks into columns, definitions decoded as usual; false (columns reset) when a chunk is not in the shape read there. */
function readColumns(dec: Decoder, chunks: Uint8Array[], fmts: number[] | undefined, markers: boolean, c: { reader: ChunkColumnsReader; out: DataColumns }, definitions: SeriesDefinition[], ref: BatchRef): boolean {
  c.out.reset();
  for (let i = 0; i < chunks.length; i++) {
    const f = fmts?.[i] ?? CHUNK_FORMAT.cbor;
    if (f === CHUNK_FORMAT.cbor && c.reader.read(chunks[i]!, markers, c.out)) continue;
    if (f !== CHUNK_FORMAT.definitions) {
      c.out.reset();
      definitions.length = 0;
      return false;
    }
    try {
      for (const d of decodeDefinitionsChunk(dec, chunks[i]!)) definitions.push(d);
    } catch (e) {
      throw new ProtocolError(e instanceof DefinitionsChunkError ? `invalid chunk ${i}: ${e.message}` : (e as Error).message, ref);
    }
  }
  return true;
}
