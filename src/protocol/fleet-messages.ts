/**
 * Fleet management messages (docs/protocol.md, docs/fleet.md), checked by hand as the other
 * small messages the agent reads (no zod on the agent):
 *
 * - `claim` (collector → agent, on the feed's `ack` topic): whether the agent's identity holds
 *   the feed; when not, who does and since when.
 * - `config` (collector → agent, retained on `config`): the feed's remote configuration revision.
 * - `config-status` (agent → collector, on `config-status`): the revision the agent runs, or
 *   why it refused one.
 */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, isMs, isSafeInt, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";
import { INSTANCE_ID_PATTERN } from "./identity.ts";

const isInstance = (v: unknown): v is string => typeof v === "string" && INSTANCE_ID_PATTERN.test(v);
const isText = (v: unknown, max: number): v is string => typeof v === "string" && v.length <= max;
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);

export interface ClaimHolder {
  instance: string;
  host?: string;
  /** When it claimed the feed, ms. */
  since: number;
}

export interface ClaimAnswer {
  /** The identity this answers. */
  instance: string;
  granted: boolean;
  /** Refused: the identity that holds the feed. */
  holder?: ClaimHolder;
  /** The feed was released by an admin: claim it again (the first claim takes it). */
  reclaim?: boolean;
}

export function encodeClaim(enc: Encoder, c: ClaimAnswer): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "claim", instance: c.instance, granted: c.granted, ...(c.holder ? { holder: c.holder } : {}), ...(c.reclaim ? { reclaim: true } : {}) });
}

export function decodeClaim(dec: Decoder, payload: Uint8Array): ClaimAnswer {
  const raw = decodeCbor(dec, payload, "claim");
  versionCheck(raw, "claim");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "claim", 'expected "claim"');
  check("instance", isInstance(map.instance), "expected an instance id");
  check("granted", typeof map.granted === "boolean", "expected a boolean");
  const h = map.holder as Record<string, unknown> | undefined;
  check("reclaim", map.reclaim === undefined || typeof map.reclaim === "boolean", "expected a boolean");
  check("holder", h === undefined || (isMap(h) && isInstance(h.instance) && isMs(h.since) && (h.host === undefined || isText(h.host, 255))), "expected {instance, since, host?}");
  if (problems.length) throw new ProtocolError(`invalid claim: ${problems.join("; ")}`);
  const answer: ClaimAnswer = { instance: map.instance as string, granted: map.granted as boolean };
  if (h) answer.holder = { instance: h.instance as string, since: h.since as number, ...(h.host === undefined ? {} : { host: h.host as string }) };
  if (map.reclaim === true) answer.reclaim = true;
  return answer;
}

export interface ConfigMessage {
  /** Numbered per tenant from 1; 0: no remote configuration (the local one alone). */
  revision: number;
  /** Option names to values, as an admin wrote them (src/agent-config/remote.ts). */
  config: Record<string, unknown>;
}

export function encodeConfig(enc: Encoder, m: ConfigMessage): Uint8Array {
  return enc.encode({ v: PROTOCOL_VERSION, kind: "config", revision: m.revision, config: m.config });
}

export function decodeConfig(dec: Decoder, payload: Uint8Array): ConfigMessage {
  const raw = decodeCbor(dec, payload, "config");
  versionCheck(raw, "config");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "config", 'expected "config"');
  check("revision", isSafeInt(map.revision, 0), "expected an integer ≥ 0");
  check("config", isMap(map.config), "expected a map");
  if (problems.length) throw new ProtocolError(`invalid config: ${problems.join("; ")}`);
  return { revision: map.revision as number, config: map.config as Record<string, unknown> };
}

export const CONFIG_STATES = ["applied", "failed"] as const;
export type ConfigState = (typeof CONFIG_STATES)[number];
/** Longest reason an agent gives for refusing a revision. */
export const MAX_CONFIG_ERROR = 2000;

export interface ConfigStatus {
  /** The reporting agent's identity (absent from an agent without one). */
  instance?: string;
  /** The revision this report is about. */
  revision: number;
  state: ConfigState;
  /** The revision in effect on the agent now (the previous one when `revision` failed). */
  running: number;
  /** Why `revision` was refused (state failed). */
  error?: string;
  /** Options the revision sets that the agent's local configuration pins (kept local). */
  kept?: string[];
}

export function encodeConfigStatus(enc: Encoder, s: ConfigStatus): Uint8Array {
  return enc.encode({
    v: PROTOCOL_VERSION,
    kind: "config-status",
    revision: s.revision,
    state: s.state,
    running: s.running,
    ...(s.instance === undefined ? {} : { instance: s.instance }),
    ...(s.error === undefined ? {} : { error: s.error.slice(0, MAX_CONFIG_ERROR) }),
    ...(s.kept?.length ? { kept: s.kept } : {}),
  });
}

export function decodeConfigStatus(dec: Decoder, payload: Uint8Array): ConfigStatus {
  const raw = decodeCbor(dec, payload, "config-status");
  versionCheck(raw, "config-status");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "config-status", 'expected "config-status"');
  check("revision", isSafeInt(map.revision, 0), "expected an integer ≥ 0");
  check("running", isSafeInt(map.running, 0), "expected an integer ≥ 0");
  check("state", CONFIG_STATES.includes(map.state as ConfigState), `expected ${CONFIG_STATES.join(" or ")}`);
  check("instance", map.instance === undefined || isInstance(map.instance), "expected an instance id");
  check("error", map.error === undefined || isText(map.error, MAX_CONFIG_ERROR), `expected a string of at most ${MAX_CONFIG_ERROR} characters`);
  check("kept", map.kept === undefined || (Array.isArray(map.kept) && map.kept.length <= 64 && map.kept.every((k) => isText(k, 64))), "expected a list of option names");
  if (problems.length) throw new ProtocolError(`invalid config-status: ${problems.join("; ")}`);
  const s: ConfigStatus = { revision: map.revision as number, state: map.state as ConfigState, running: map.running as number };
  if (map.instance !== undefined) s.instance = map.instance as string;
  if (map.error !== undefined) s.error = map.error as string;
  if (map.kept !== undefined) s.kept = map.kept as string[];
  return s;
}
