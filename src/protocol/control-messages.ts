/** The small control messages: acks (collector → agent) and presence statuses (agent → collector). */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, isMs, isSeq, isSession, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";
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
}

export const PRESENCE_STATES = ["online", "offline"] as const;
export interface Status {
  state: (typeof PRESENCE_STATES)[number];
  session: number;
  /** Agent clock when the status was made, ms (a last will carries its connect time). */
  at: number;
  /** The agent's version and architecture (agents before upgrades did not send them). */
  version?: string;
  arch?: string;
  /** Its latest upgrade (docs/fleet.md, "Upgrades"); absent when it never had one. */
  upgrade?: UpgradeReport;
  /** The agent's tags (--tags), for the fleet. */
  tags?: Record<string, string>;
}

const isTags = (v: unknown): v is Record<string, string> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length <= 64 && Object.entries(v).every(([k, x]) => k.length <= 64 && typeof x === "string" && x.length <= 256);

/** `ack` answers data batches, `events-ack` events batches (each stream has its own sessions). */
export type AckKind = "ack" | "events-ack";

export function encodeAck(enc: Encoder, a: Ack, kind: AckKind = "ack"): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind, session: a.session, seqs: a.seqs, ...(a.rejected?.length ? { rejected: a.rejected } : {}), ...(a.retry?.length ? { retry: a.retry } : {}) });
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
  if (problems.length) throw new ProtocolError(`invalid ack: ${problems.join("; ")}`);
  return {
    session: map.session as number,
    seqs: map.seqs as number[],
    rejected: (rejected as { seq: number; reason: string }[] | undefined)?.map((r) => ({ seq: r.seq, reason: r.reason })),
    ...(map.retry === undefined ? {} : { retry: map.retry as number[] }),
  };
}

export function encodeStatus(enc: Encoder, s: Status): Uint8Array {
  const extra = {
    ...(s.version === undefined ? {} : { version: s.version }),
    ...(s.arch === undefined ? {} : { arch: s.arch }),
    ...(s.upgrade ? { upgrade: s.upgrade } : {}),
    ...(s.tags && Object.keys(s.tags).length > 0 ? { tags: s.tags } : {}),
  };
  return enc.encode({ v: PROTOCOL_VERSION, kind: "status", state: s.state, session: s.session, at: s.at, ...extra });
}

export function decodeStatus(dec: Decoder, payload: Uint8Array): Status {
  const raw = decodeCbor(dec, payload, "status");
  versionCheck(raw, "status");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "status", 'expected "status"');
  check("state", PRESENCE_STATES.includes(map.state as Status["state"]), "expected online or offline");
  check("session", isSession(map.session), "expected an integer ≥ 0");
  check("at", isMs(map.at), "expected an integer (ms)");
  const short = (v: unknown) => v === undefined || (typeof v === "string" && v.length > 0 && v.length <= 64);
  check("version", short(map.version), "expected a string of 1 to 64 characters");
  check("arch", short(map.arch), "expected a string of 1 to 64 characters");
  check("tags", map.tags === undefined || isTags(map.tags), "expected a map of at most 64 strings");
  const upgradeProblem = map.upgrade === undefined ? undefined : upgradeReportProblem(map.upgrade);
  if (upgradeProblem) problems.push(`upgrade.${upgradeProblem}`);
  if (problems.length) throw new ProtocolError(`invalid status: ${problems.join("; ")}`);
  return {
    state: map.state as Status["state"],
    session: map.session as number,
    at: map.at as number,
    ...(map.version === undefined ? {} : { version: map.version as string }),
    ...(map.arch === undefined ? {} : { arch: map.arch as string }),
    ...(map.upgrade === undefined ? {} : { upgrade: copyUpgradeReport(map.upgrade as UpgradeReport) }),
    ...(map.tags === undefined ? {} : { tags: map.tags as Record<string, string> }),
  };
}
