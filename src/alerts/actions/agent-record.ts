/**
 * What an agent reports of one local action it ran, or refused to run (docs/local-triggers.md):
 * an Action of the history (the Hawkular shape) with the time it ran, when it ended and what
 * came of it. Shared by the agent (which makes them) and the collector (which checks and stores them).
 */
import { ACTION_RESULTS, type Action } from "../model.ts";

/** Output kept of a command, at most (the agent truncates; the collector refuses longer). */
export const MAX_ACTION_OUTPUT = 4096;
/** Longest result message. */
export const MAX_RESULT_MESSAGE = 1024;

/** Names one run: one action, for one alert or event, in one of its states; runs once. */
export function agentRunId(a: Pick<Action, "eventId" | "actionPlugin" | "actionId" | "event">): string {
  const status = (a.event as { status?: string } | undefined)?.status ?? "EVENT";
  // JSON: unambiguous whatever the ids hold, and no NUL (PostgreSQL's text refuses it).
  return JSON.stringify([a.eventId, status, a.actionPlugin, a.actionId]);
}

/** The history key of a run reported by the agent of `feed`: the same run is stored once. */
export function agentActionKey(feed: string, a: Action): string {
  return JSON.stringify(["agent", feed, agentRunId(a)]);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isMs = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v);
const isText = (v: unknown, max: number) => typeof v === "string" && v.length <= max;

/** Why a reported action cannot be stored, or undefined when it can. */
export function agentRecordProblem(v: unknown, plugins: readonly string[]): string | undefined {
  if (!isObject(v)) return "not a map";
  if (!isText(v.actionPlugin, 256) || !plugins.includes(v.actionPlugin as string)) return `actionPlugin: expected one of ${plugins.join(", ")}`;
  if (!isText(v.actionId, 1024) || v.actionId === "") return "actionId: expected a non-empty string";
  if (!isText(v.eventId, 1024) || v.eventId === "") return "eventId: expected a non-empty string";
  if (!isMs(v.ctime)) return "ctime: expected an integer (ms)";
  if (v.endTime !== undefined && !isMs(v.endTime)) return "endTime: expected an integer (ms)";
  if (!ACTION_RESULTS.includes(v.result as Action["result"] & (typeof ACTION_RESULTS)[number]) || v.result === "WAITING") return "result: expected PROCESSED or FAILED";
  if (v.resultMessage !== undefined && !isText(v.resultMessage, MAX_RESULT_MESSAGE)) return `resultMessage: expected a string of at most ${MAX_RESULT_MESSAGE} characters`;
  if (v.output !== undefined && !isText(v.output, MAX_ACTION_OUTPUT)) return `output: expected a string of at most ${MAX_ACTION_OUTPUT} characters`;
  if (!isObject(v.properties) || !Object.values(v.properties).every((p) => typeof p === "string")) return "properties: expected a map of strings";
  if (v.event !== undefined && (!isObject(v.event) || v.event.id !== v.eventId)) return "event: expected the alert or event named by eventId";
  return undefined;
}
