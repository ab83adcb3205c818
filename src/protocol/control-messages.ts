/** The small control messages: acks (collector → agent) and presence statuses (agent → collector). */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, isMs, isSeq, isSession, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";
import { ED25519_KEY_BYTES, ED25519_SIGNATURE_BYTES, INSTANCE_ID_PATTERN } from "./identity.ts";
import { copyUpgradeReport, type UpgradeReport, upgradeReportProblem } from "./upgrade-messages.ts";

/**
 * Collector → agent: batches committed, batches refused for good (they must not be resent),
 * and batches to resend now (they were refused for a passing reason, such as a full disk,
 * which has passed).
 */
export interface Ack {
  session: number;
  seqs: number[];
  rejected?: { seq: number; reason: string }[];
  retry?: number[];
  /** The agent identity whose batches these are (docs/fleet.md); another agent on the feed's topic ignores it. */
  instance?: string;
}

export const PRESENCE_STATES = ["online", "offline"] as const;
export interface Status {
  state: (typeof PRESENCE_STATES)[number];
  session: number;
  /** Agent clock when the status was made, ms (a last will carries its connect time). */
  at: number;
  /** The agent's identity (docs/fleet.md); absent from agents that predate it. */
  instance?: string;
  /** The claim on the feed (online only): the Ed25519 public key and its signature of the claim (identity.ts). */
  key?: Uint8Array;
  sig?: Uint8Array;
  /** The agent's host name and its tags (--tags), for the fleet. */
  host?: string;
  tags?: Record<string, string>;
  /** The agent's version and architecture (agents before upgrades did not send them). */
  version?: string;
  arch?: string;
  /** Its latest upgrade (docs/fleet.md, "Upgrades"); absent when it never had one. */
  upgrade?: UpgradeReport;
}

export const isInstanceId = (v: unknown): v is string => typeof v === "string" && INSTANCE_ID_PATTERN.test(v);
const isBytes = (v: unknown, n: number): v is Uint8Array => v instanceof Uint8Array && v.length === n;
const isTags = (v: unknown): v is Record<string, string> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length <= 64 && Object.entries(v).every(([k, x]) => k.length <= 64 && typeof x === "string" && x.length <= 256);

/** `ack` answers data batches, `events-ack` events batches (each stream has its own sessions). */
export type AckKind = "ack" | "events-ack";

export function encodeAck(enc: Encoder, a: Ack, kind: AckKind = "ack"): Uint8Array {
  return enc.encode({
    v: PROTOCOL_VERSION,
    kind,
    session: a.session,
    seqs: a.seqs,
    ...(a.rejected?.length ? { rejected: a.rejected } : {}),
    ...(a.retry?.length ? { retry: a.retry } : {}),
    ...(a.instance === undefined ? {} : { instance: a.instance }),
  });
}

export function decodeAck(dec: Decoder, payload: Uint8Array, kind: AckKind = "ack"): Ack {
  const raw = decodeCbor(dec, payload, "ack");
  versionCheck(raw, "ack");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === kind, `expected "${kind}"`);
  check("session", isSession(map.session), "expected an integer ≥ 0");
  check("seqs", Array.isArray(map.seqs) && map.seqs.every(isSeq), "expected an array of integers ≥ 1");
  const rejected = map.rejected;
  const rejectionOk = (r: unknown) => r !== null && typeof r === "object" && isSeq((r as { seq?: unknown }).seq) && typeof (r as { reason?: unknown }).reason === "string";
  check("rejected", rejected === undefined || (Array.isArray(rejected) && rejected.every(rejectionOk)), "expected an array of {seq, reason}");
  check("retry", map.retry === undefined || (Array.isArray(map.retry) && map.retry.every(isSeq)), "expected an array of integers ≥ 1");
  check("instance", map.instance === undefined || isInstanceId(map.instance), "expected an instance id");
  if (problems.length) throw new ProtocolError(`invalid ack: ${problems.join("; ")}`);
  return {
    session: map.session as number,
    seqs: map.seqs as number[],
    rejected: (rejected as { seq: number; reason: string }[] | undefined)?.map((r) => ({ seq: r.seq, reason: r.reason })),
    ...(map.retry === undefined ? {} : { retry: map.retry as number[] }),
    ...(map.instance === undefined ? {} : { instance: map.instance as string }),
  };
}

export function encodeStatus(enc: Encoder, s: Status): Uint8Array {
  const identity = s.instance === undefined ? {} : { instance: s.instance, ...(s.key && s.sig ? { key: s.key, sig: s.sig } : {}) };
  const about = {
    ...(s.host === undefined ? {} : { host: s.host }),
    ...(s.tags && Object.keys(s.tags).length > 0 ? { tags: s.tags } : {}),
    ...(s.version === undefined ? {} : { version: s.version }),
    ...(s.arch === undefined ? {} : { arch: s.arch }),
    ...(s.upgrade ? { upgrade: s.upgrade } : {}),
  };
  return enc.encode({ v: PROTOCOL_VERSION, kind: "status", state: s.state, session: s.session, at: s.at, ...identity, ...about });
}

export function decodeStatus(dec: Decoder, payload: Uint8Array): Status {
  const raw = decodeCbor(dec, payload, "status");
  versionCheck(raw, "status");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "status", 'expected "status"');
  check("state", PRESENCE_STATES.includes(map.state as Status["state"]), "expected online or offline");
  check("session", isSession(map.session), "expected an integer ≥ 0");
  check("at", isMs(map.at), "expected an integer (ms)");
  check("instance", map.instance === undefined || isInstanceId(map.instance), "expected 32 hexadecimal digits");
  check("key", map.key === undefined || isBytes(map.key, ED25519_KEY_BYTES), `expected ${ED25519_KEY_BYTES} bytes`);
  check("sig", map.sig === undefined || isBytes(map.sig, ED25519_SIGNATURE_BYTES), `expected ${ED25519_SIGNATURE_BYTES} bytes`);
  check("host", map.host === undefined || (typeof map.host === "string" && map.host.length <= 255), "expected a string of at most 255 characters");
  check("tags", map.tags === undefined || isTags(map.tags), "expected a map of at most 64 strings");
  const short = (v: unknown) => v === undefined || (typeof v === "string" && v.length > 0 && v.length <= 64);
  check("version", short(map.version), "expected a string of 1 to 64 characters");
  check("arch", short(map.arch), "expected a string of 1 to 64 characters");
  const upgradeProblem = map.upgrade === undefined ? undefined : upgradeReportProblem(map.upgrade);
  if (upgradeProblem) problems.push(`upgrade.${upgradeProblem}`);
  if (problems.length) throw new ProtocolError(`invalid status: ${problems.join("; ")}`);
  const s: Status = { state: map.state as Status["state"], session: map.session as number, at: map.at as number };
  if (map.instance !== undefined) s.instance = map.instance as string;
  if (map.key !== undefined && map.sig !== undefined) {
    s.key = map.key as Uint8Array;
    s.sig = map.sig as Uint8Array;
  }
  if (map.host !== undefined) s.host = map.host as string;
  if (map.tags !== undefined) s.tags = map.tags as Record<string, string>;
  if (map.version !== undefined) s.version = map.version as string;
  if (map.arch !== undefined) s.arch = map.arch as string;
  if (map.upgrade !== undefined) s.upgrade = copyUpgradeReport(map.upgrade as UpgradeReport);
  return s;
}
