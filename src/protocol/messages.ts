/**
 * Versioned CBOR messages between agent and collector (docs/protocol.md). Every decoded
 * message is validated with zod before use; a decoding or validation failure is a
 * ProtocolError, never an exception from deep inside a handler.
 */
import type { Decoder, Encoder } from "cbor-x";
import * as z from "zod";
import { METRIC_TYPES, type MetricType, type MetricWrite } from "../metrics/model.ts";
import { metricIdSchema, pointSchemas } from "../metrics/schemas.ts";

export const PROTOCOL_VERSION = 1;

const seqSchema = z.number().int().min(1).refine(Number.isSafeInteger, "out of range");
const sessionSchema = z.number().int().min(0).refine(Number.isSafeInteger, "out of range");
const msSchema = z.number().int().refine(Number.isSafeInteger, "out of range");

/** A data batch: chunks of points as the agent buffered them, each a nested CBOR item. */
export interface DataBatch {
  /** Increments on every start of the agent's buffer; seq restarts at 1 with it. */
  session: number;
  seq: number;
  /** Agent clock when this copy was sent, ms. */
  sentAt: number;
  /** True when replaying backlog from an outage, false for fresh data. */
  replay: boolean;
  chunks: Uint8Array[];
}

const dataEnvelope = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("data"),
  session: sessionSchema,
  seq: seqSchema,
  sentAt: msSchema,
  replay: z.boolean(),
  chunks: z.array(z.instanceof(Uint8Array)).min(1, "a batch has at least one chunk"),
});

function writeSchema<T extends MetricType>(type: T) {
  return z.object({ type: z.literal(type), id: metricIdSchema, points: z.array(pointSchemas[type]).min(1) });
}
/** One chunk: the same shape the metrics write API produces after parsing its JSON. */
const chunkSchema = z.array(z.discriminatedUnion("type", METRIC_TYPES.map(writeSchema) as [ReturnType<typeof writeSchema>])).min(1);

export interface BatchRef {
  session: number;
  seq: number;
}

export interface Rejection extends BatchRef {
  reason: string;
}

/** Collector → agent: batches committed, and batches refused for good (they must not be resent). */
export interface Ack {
  session: number;
  seqs: number[];
  rejected?: { seq: number; reason: string }[];
}

const ackSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("ack"),
  session: sessionSchema,
  seqs: z.array(seqSchema),
  rejected: z.array(z.object({ seq: seqSchema, reason: z.string() })).optional(),
});

export const PRESENCE_STATES = ["online", "offline"] as const;
export interface Status {
  state: (typeof PRESENCE_STATES)[number];
  session: number;
  /** Agent clock when the status was made, ms (a last will carries its connect time). */
  at: number;
}

const statusSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("status"),
  state: z.enum(PRESENCE_STATES),
  session: sessionSchema,
  at: msSchema,
});

/** A message that cannot be used. `batch` is set when the batch is identifiable, so it can be refused by ack. */
export class ProtocolError extends Error {
  constructor(
    message: string,
    readonly batch?: BatchRef,
  ) {
    super(message);
  }
}

function describe(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "message"}: ${i.message}`)
    .join("; ");
}

function decodeCbor(dec: Decoder, payload: Uint8Array, what: string): unknown {
  if (payload.length === 0) throw new ProtocolError(`empty ${what}`);
  try {
    return dec.decode(payload);
  } catch (e) {
    throw new ProtocolError(`${what} is not valid CBOR: ${(e as Error).message}`);
  }
}

function versionCheck(value: unknown, kind: string): void {
  if (value === null || typeof value !== "object") throw new ProtocolError(`${kind} message is not a map`);
  const v = (value as { v?: unknown }).v;
  if (v !== PROTOCOL_VERSION) throw new ProtocolError(`unsupported ${kind} message version ${JSON.stringify(v)}`);
}

export function encodeChunk(enc: Encoder, writes: MetricWrite[]): Uint8Array {
  return enc.encode(writes);
}

export function encodeData(enc: Encoder, b: DataBatch): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "data", session: b.session, seq: b.seq, sentAt: b.sentAt, replay: b.replay, chunks: b.chunks });
}

export interface DecodedBatch extends Omit<DataBatch, "chunks"> {
  writes: MetricWrite[];
  points: number;
}

/** Decodes and validates a data batch and every point in it. */
export function decodeData(dec: Decoder, payload: Uint8Array): DecodedBatch {
  const raw = decodeCbor(dec, payload, "data batch");
  versionCheck(raw, "data");
  const env = dataEnvelope.safeParse(raw);
  if (!env.success) {
    const r = raw as { session?: unknown; seq?: unknown };
    const ref = sessionSchema.safeParse(r.session).success && seqSchema.safeParse(r.seq).success ? { session: r.session as number, seq: r.seq as number } : undefined;
    throw new ProtocolError(`invalid data batch: ${describe(env.error)}`, ref);
  }
  const { session, seq, sentAt, replay, chunks } = env.data;
  const ref = { session, seq };
  const writes: MetricWrite[] = [];
  let points = 0;
  for (let i = 0; i < chunks.length; i++) {
    let value: unknown;
    try {
      value = decodeCbor(dec, chunks[i]!, `chunk ${i}`);
    } catch (e) {
      throw new ProtocolError((e as Error).message, ref);
    }
    const parsed = chunkSchema.safeParse(value);
    if (!parsed.success) throw new ProtocolError(`invalid chunk ${i}: ${describe(parsed.error)}`, ref);
    for (const w of parsed.data as MetricWrite[]) {
      writes.push(w);
      points += w.points.length;
    }
  }
  return { session, seq, sentAt, replay, writes, points };
}

export function encodeAck(enc: Encoder, a: Ack): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "ack", session: a.session, seqs: a.seqs, ...(a.rejected?.length ? { rejected: a.rejected } : {}) });
}

export function decodeAck(dec: Decoder, payload: Uint8Array): Ack {
  const raw = decodeCbor(dec, payload, "ack");
  versionCheck(raw, "ack");
  const r = ackSchema.safeParse(raw);
  if (!r.success) throw new ProtocolError(`invalid ack: ${describe(r.error)}`);
  return { session: r.data.session, seqs: r.data.seqs, rejected: r.data.rejected };
}

export function encodeStatus(enc: Encoder, s: Status): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "status", state: s.state, session: s.session, at: s.at });
}

export function decodeStatus(dec: Decoder, payload: Uint8Array): Status {
  const raw = decodeCbor(dec, payload, "status");
  versionCheck(raw, "status");
  const r = statusSchema.safeParse(raw);
  if (!r.success) throw new ProtocolError(`invalid status: ${describe(r.error)}`);
  return { state: r.data.state, session: r.data.session, at: r.data.at };
}
