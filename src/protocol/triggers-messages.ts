/**
 * `triggers` (collector → agent, retained): the full definitions of the triggers an agent
 * evaluates locally (docs/local-triggers.md). Each message replaces the previous set.
 */
import type { Decoder, Encoder } from "cbor-x";
import { decodeCbor, fieldChecker, PROTOCOL_VERSION, ProtocolError, versionCheck } from "./envelope.ts";

export interface TriggersMessage {
  /** Names this set; the agent logs it and skips a set it already applied. */
  digest: string;
  /** FullTrigger JSON (trigger, conditions, dampenings), validated by the agent with the alerting schemas. */
  triggers: unknown[];
  /**
   * ActionDefinition JSON of the `agent` plugin that the triggers link, and the tenant's global
   * ones (docs/local-triggers.md); absent when none. Agents that predate it ignore it.
   */
  actions?: unknown[];
}

export function encodeTriggers(enc: Encoder, m: TriggersMessage): Uint8Array {
  const actions = m.actions && m.actions.length > 0 ? { actions: m.actions } : {};
  return enc.encode({ v: PROTOCOL_VERSION, kind: "triggers", digest: m.digest, triggers: m.triggers, ...actions });
}

export function decodeTriggers(dec: Decoder, payload: Uint8Array): TriggersMessage {
  const raw = decodeCbor(dec, payload, "triggers");
  versionCheck(raw, "triggers");
  const { map, problems, check } = fieldChecker(raw);
  check("kind", map.kind === "triggers", 'expected "triggers"');
  check("digest", typeof map.digest === "string" && map.digest.length > 0, "expected a non-empty string");
  check("triggers", Array.isArray(map.triggers), "expected an array");
  check("actions", map.actions === undefined || Array.isArray(map.actions), "expected an array");
  if (problems.length) throw new ProtocolError(`invalid triggers: ${problems.join("; ")}`);
  return { digest: map.digest as string, triggers: map.triggers as unknown[], actions: map.actions as unknown[] | undefined };
}
