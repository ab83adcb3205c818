/**
 * `events` batches: what an agent's local triggers fired (alerts and events), in the envelope
 * of data batches (session, seq, sentAt, replay, chunks); each chunk is a CBOR array of alerts
 * and events as the engine made them. Version 2 adds `fmts`, one per chunk, so a chunk may
 * instead hold the outcomes of local actions (docs/protocol.md). Checked by hand: the
 * collector stores them as they are.
 */
import type { Decoder } from "cbor-x";
import { AGENT_PLUGIN } from "../alerts/actions/agent-plugin.ts";
import { agentRecordProblem } from "../alerts/actions/agent-record.ts";
import { type Action, ALERT_STATUSES, type Alert, type Event, EVENT_TYPES, SEVERITIES } from "../alerts/model.ts";
import { INSTANCE_ID_PATTERN } from "./identity.ts";
import { decodeCbor, fieldChecker, isMs, isSeq, isSession, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";

/** Version of an events batch with `fmts`: older collectors refuse it unread and unacknowledged, so the agent keeps it. */
export const EVENTS_VERSION_ACTIONS = 2;

/** What an events chunk holds (the rows of the agent's events buffer record it). */
export const EVENTS_CHUNK_FORMAT = {
  /** Alerts and events. */
  items: 1,
  /** Outcomes of local actions (src/alerts/actions/agent-record.ts). */
  actions: 2,
} as const;

export interface DecodedEvents {
  session: number;
  seq: number;
  sentAt: number;
  replay: boolean;
  items: (Alert | Event)[];
  /** Outcomes of the agent's local actions (version 2). */
  actions: Action[];
  /** The sending agent's identity (docs/fleet.md). */
  instance?: string;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Why an alert or event cannot be stored, or undefined when it can. */
function itemProblem(v: unknown): string | undefined {
  if (!isObject(v)) return "not a map";
  if (!isString(v.id) || v.id === "") return "id: expected a non-empty string";
  if (!EVENT_TYPES.includes(v.eventType as Event["eventType"])) return "eventType: expected ALERT or EVENT";
  if (!isMs(v.ctime)) return "ctime: expected an integer (ms)";
  if (!isString(v.category) || !isString(v.text)) return "category, text: expected strings";
  if (v.eventType !== "ALERT") return undefined;
  if (!SEVERITIES.includes(v.severity as Alert["severity"])) return "severity: expected LOW, MEDIUM, HIGH or CRITICAL";
  if (!ALERT_STATUSES.includes(v.status as Alert["status"])) return "status: expected OPEN, ACKNOWLEDGED or RESOLVED";
  if (!Array.isArray(v.lifecycle) || v.lifecycle.length === 0) return "lifecycle: expected a non-empty array";
  return undefined;
}

export function decodeEvents(dec: Decoder, payload: Uint8Array): DecodedEvents {
  const raw = decodeCbor(dec, payload, "events batch");
  const v = versionCheck(raw, "events", [PROTOCOL_VERSION, EVENTS_VERSION_ACTIONS]);
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "events", 'expected "events"');
  check("session", isSession(map.session), "expected an integer ≥ 0");
  check("seq", isSeq(map.seq), "expected an integer ≥ 1");
  check("sentAt", isMs(map.sentAt), "expected an integer (ms)");
  check("replay", typeof map.replay === "boolean", "expected a boolean");
  check("instance", map.instance === undefined || (typeof map.instance === "string" && INSTANCE_ID_PATTERN.test(map.instance)), "expected 32 hexadecimal digits");
  check("chunks", Array.isArray(map.chunks) && map.chunks.length > 0 && map.chunks.every((c) => c instanceof Uint8Array), "expected a non-empty array of byte strings");
  const formats = Object.values(EVENTS_CHUNK_FORMAT) as number[];
  if (v === EVENTS_VERSION_ACTIONS) {
    const ok = Array.isArray(map.fmts) && Array.isArray(map.chunks) && map.fmts.length === map.chunks.length && map.fmts.every((f) => formats.includes(f as number));
    check("fmts", ok, `expected one format (${formats.join(" or ")}) per chunk`);
  } else check("fmts", map.fmts === undefined, "only in version 2");
  const ref = isSession(map.session) && isSeq(map.seq) ? { session: map.session, seq: map.seq } : undefined;
  if (problems.length) throw new ProtocolError(`invalid events batch: ${problems.join("; ")}`, ref);
  const items: (Alert | Event)[] = [];
  const actions: Action[] = [];
  const fmts = (map.fmts as number[] | undefined) ?? [];
  (map.chunks as Uint8Array[]).forEach((chunk, i) => {
    let list: unknown;
    try {
      list = decodeCbor(dec, chunk, `chunk ${i}`);
    } catch (e) {
      throw new ProtocolError((e as Error).message, ref);
    }
    if (!Array.isArray(list)) throw new ProtocolError(`invalid chunk ${i}: expected an array`, ref);
    const isActions = fmts[i] === EVENTS_CHUNK_FORMAT.actions;
    list.forEach((item, j) => {
      const why = isActions ? agentRecordProblem(item, [AGENT_PLUGIN]) : itemProblem(item);
      if (why) throw new ProtocolError(`invalid chunk ${i}, ${isActions ? "action" : "item"} ${j}: ${why}`, ref);
      if (isActions) actions.push(item as Action);
      else items.push(item as Alert | Event);
    });
  });
  const instance = map.instance === undefined ? {} : { instance: map.instance as string };
  return { session: map.session as number, seq: map.seq as number, sentAt: map.sentAt as number, replay: map.replay as boolean, items, actions, ...instance };
}
