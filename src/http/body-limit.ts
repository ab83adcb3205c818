import type { Context, MiddlewareHandler } from "hono";
import type { OptionSpec, OptionValues } from "../config/options.ts";
import { ApiError } from "./errors.ts";
import type { MemoryGovernor } from "./memory-governor.ts";

/**
 * Bytes of request bodies held in memory at once, across all requests. A body takes its
 * bytes as they arrive (all at once when it declares its length) and gives them back when its
 * request is answered; one that finds the budget spent is refused with a 503 to retry.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly total: number) {}

  tryTake(n: number): boolean {
    if (this.used + n > this.total) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }

  get inUse(): number {
    return this.used;
  }
}

export interface BodyLimit {
  /** Largest body accepted, in bytes (413 beyond). */
  maxBytes: number;
  budget: BodyBudget;
  /** The option that sets `maxBytes`, named in the 413 message. */
  option: string;
  /** Collects garbage, or refuses bodies, when resident memory is high (--memory-target, --memory-limit). */
  memory?: MemoryGovernor;
  /** How slowly a body may arrive (408 beyond); none: no limit. */
  pace?: BodyPace;
}

/**
 * A body must have arrived `graceMs` after its headers, plus one second per `minBytesPerSecond`
 * of its size: a client trickling it (a byte now and then keeps a connection open forever, and
 * with it a share of the body budget) is answered 408 and the connection closed. A body without
 * a declared length is held to the same pace as it arrives.
 */
export interface BodyPace {
  graceMs: number;
  minBytesPerSecond: number;
  /** The options that set them, named in the 408 message. */
  options: string;
}

/**
 * Bun's own cap on request bodies, set far above any limit here: Bun does not read a body the
 * handler does not read, and answering 413 itself it would send no errorMsg.
 */
export const SERVER_BODY_CAP = 4 * 1024 ** 3;

/** What one request took from the budget; given back when the request is answered. */
interface Allowance {
  limit: BodyLimit;
  taken: number;
}

const allowances = new WeakMap<Request, Allowance>();

/**
 * Applies `limit` to the bodies that readJson reads for the requests below this middleware,
 * and gives their bytes back to the budget once the response is ready.
 */
export function limitBodies(limit: BodyLimit): MiddlewareHandler {
  return async (c, next) => {
    const a: Allowance = { limit, taken: 0 };
    allowances.set(c.req.raw, a);
    try {
      await next();
    } finally {
      limit.budget.give(a.taken);
      a.taken = 0;
    }
  };
}

function tooLarge(limit: BodyLimit, size: string): ApiError {
  return new ApiError(413, `Request body is ${size}; at most ${limit.maxBytes} bytes are accepted (${limit.option})`);
}

function take(a: Allowance, n: number): void {
  if (!a.limit.budget.tryTake(n)) {
    throw new ApiError(503, "Too many large request bodies are being received at once; retry shortly");
  }
  a.taken += n;
}

/** The largest body accepted for this request (what a decompressed body is held to as well). */
export function bodyLimitOf(c: Context): number {
  return allowances.get(c.req.raw)?.limit.maxBytes ?? Number.POSITIVE_INFINITY;
}

/**
 * The request body as text, held to the limit (see readBodyBytes). A body that declares its
 * length is read as text directly: Bun then decodes it from its own buffer, where reading
 * bytes first left one more copy per request (a quarter of a megabyte per ingest batch) for the
 * garbage collector. Both decode UTF-8 the same way (replacement characters, a BOM dropped).
 */
export async function readBodyText(c: Context): Promise<string> {
  const a = allowances.get(c.req.raw);
  const declared = c.req.header("Content-Length");
  if (a && declared !== undefined) {
    const n = declaredLength(a, declared);
    take(a, n);
    const pace = a.limit.pace;
    return pace ? inTime(c.req.text(), allowedMs(pace, n), pace) : c.req.text();
  }
  return new TextDecoder().decode(await readBodyBytes(c));
}

function tooSlow(pace: BodyPace): ApiError {
  return new ApiError(
    408,
    `The request body did not arrive in time (${pace.graceMs / 1000} s, plus a second per ${pace.minBytesPerSecond} bytes of it: ${pace.options})`,
    undefined,
    { Connection: "close" },
  );
}

/** Milliseconds a body of `bytes` may take to arrive. */
function allowedMs(pace: BodyPace, bytes: number): number {
  return pace.graceMs + (1000 * bytes) / pace.minBytesPerSecond;
}

/** The read, or a 408 after `ms`. */
async function inTime<T>(read: Promise<T>, ms: number, pace: BodyPace): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(tooSlow(pace)), Math.max(0, ms));
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
    // The read goes on until the connection closes; its failure then is no one's concern.
    read.catch(() => {});
  }
}

/** The Content-Length of a body checked against the limit, after the memory governor's say. */
function declaredLength(a: Allowance, declared: string): number {
  const { limit } = a;
  const n = Number(declared);
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiError(400, `Invalid Content-Length: ${declared}`);
  if (n > limit.maxBytes) throw tooLarge(limit, `${n} bytes`);
  limit.memory?.admit(n);
  return n;
}

/**
 * Lets the memory of a body read by readBodyBytes go now rather than at the next garbage
 * collection, when the bytes are a buffer of their own (a body with a declared length). Why:
 * the engine collects garbage once its heap has grown by a share of what is live, so under
 * ingest the bodies of hundreds of requests pile up before one collection frees them all, and
 * the allocator hands that memory back to the system and takes it again page by page (issue 28:
 * most of the collector's page faults). Detaching the buffer frees it at once, to be reused by
 * the next body. `bytes` (and every view of its buffer) is empty afterwards.
 */
export function releaseBody(bytes: Uint8Array): void {
  const b = bytes.buffer;
  if (b instanceof ArrayBuffer && !b.detached && bytes.byteOffset === 0 && bytes.byteLength === b.byteLength) b.transfer(0);
}

/**
 * The request body, held to the limit of `limitBodies` when one applies: a declared length
 * over it is refused before anything is read, and a body without a declared length (chunked)
 * is refused as soon as it grows past it, so no more than the limit is ever held.
 */
export async function readBodyBytes(c: Context): Promise<Uint8Array> {
  const a = allowances.get(c.req.raw);
  if (!a) return new Uint8Array(await c.req.arrayBuffer());
  const { limit } = a;
  const declared = c.req.header("Content-Length");
  if (declared !== undefined) {
    const n = declaredLength(a, declared);
    take(a, n);
    const pace = limit.pace;
    return new Uint8Array(await (pace ? inTime(c.req.arrayBuffer(), allowedMs(pace, n), pace) : c.req.arrayBuffer()));
  }
  limit.memory?.admit(0);
  const body = c.req.raw.body;
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  const started = Date.now();
  try {
    for (;;) {
      // The next chunk must come before the bytes so far (and one more) are overdue.
      const pace = limit.pace;
      const { done, value } = await (pace ? inTime(reader.read(), started + allowedMs(pace, size + 1) - Date.now(), pace) : reader.read());
      if (done) break;
      size += value.byteLength;
      if (size > limit.maxBytes) throw tooLarge(limit, `more than ${limit.maxBytes} bytes`);
      take(a, value.byteLength);
      parts.push(value);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
  limit.memory?.received(size);
  return Buffer.concat(parts, size);
}

/** The options of BodyPace, the same in both programs. */
export const bodyPaceOptions: OptionSpec[] = [
  {
    name: "request-body-timeout",
    kind: "duration",
    min: 1000,
    max: 3_600_000,
    default: "10s",
    help: "time an HTTP request body may take to arrive, plus a second per --request-body-min-rate bytes of it; a slower one is answered 408 and its connection closed",
  },
  {
    name: "request-body-min-rate",
    kind: "size",
    min: 1,
    max: 1024 ** 3,
    default: "16KiB",
    help: "bytes per second an HTTP request body must arrive at, on average, beyond --request-body-timeout",
  },
];

export function bodyPaceOf(values: OptionValues): BodyPace {
  return {
    graceMs: Number(values["request-body-timeout"] ?? 10_000),
    minBytesPerSecond: Number(values["request-body-min-rate"] ?? 16 * 1024),
    options: "--request-body-timeout, --request-body-min-rate",
  };
}
