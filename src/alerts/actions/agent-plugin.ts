/**
 * The action plugin `agent`: actions that the agent evaluating a local trigger runs itself,
 * online or offline (docs/local-triggers.md, "Local actions"). The collector validates these
 * definitions and pushes them with the triggers, but never runs them; the agent runs only what
 * its own configuration allows, and reports each outcome to the collector's action history.
 * The checks here are shared: the collector refuses a bad definition with a 400, the agent
 * skips one it was sent anyway.
 */
import type { StringMap } from "../model.ts";
import { positiveInt, propertyFor } from "./plugin.ts";
import { isHttpUrl, WEBHOOK_METHODS } from "./webhook.ts";

export const AGENT_PLUGIN = "agent";

export const AGENT_RUN_KINDS = ["command", "webhook", "syslog"] as const;
export type AgentRunKind = (typeof AGENT_RUN_KINDS)[number];

/** Property names of the plugin; each may have a per-status variant (`command.RESOLVED`). */
export const AGENT_PLUGIN_PROPERTIES = ["run", "command", "timeout", "url", "method", "retries", "facility", "level", "tag", "message"] as const;

export const SYSLOG_FACILITIES = [
  "kern",
  "user",
  "mail",
  "daemon",
  "auth",
  "syslog",
  "lpr",
  "news",
  "uucp",
  "cron",
  "authpriv",
  "ftp",
  "local0",
  "local1",
  "local2",
  "local3",
  "local4",
  "local5",
  "local6",
  "local7",
] as const;
export const SYSLOG_LEVELS = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"] as const;

/** Longest argument vector and argument a definition may name. */
const MAX_ARGS = 64;
const MAX_ARG_LENGTH = 4096;

/**
 * The argument vector of a `command` property: a JSON array of strings, the first an absolute
 * path (no search of PATH, no shell). Throws with the reason when it is not one.
 */
export function parseCommand(text: string): string[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('command must be a JSON array of strings, e.g. ["/usr/local/bin/siren", "on"]');
  }
  if (!Array.isArray(v) || v.length === 0 || !v.every((a) => typeof a === "string")) throw new Error("command must be a non-empty JSON array of strings");
  if (v.length > MAX_ARGS) throw new Error(`command has more than ${MAX_ARGS} arguments`);
  if (!(v[0] as string).startsWith("/")) throw new Error("command[0] must be an absolute path (no PATH search, no shell)");
  if (v.some((a: string) => a.length > MAX_ARG_LENGTH || a.includes("\0"))) throw new Error(`command arguments must be at most ${MAX_ARG_LENGTH} characters, without NUL`);
  return v as string[];
}

/** What the action does: its `run` property (for the alert's status first). */
export function agentRunKind(p: StringMap | undefined, status?: string): AgentRunKind | undefined {
  const k = propertyFor(p, "run", status);
  return AGENT_RUN_KINDS.includes(k as AgentRunKind) ? (k as AgentRunKind) : undefined;
}

/** Problems with an `agent` definition's properties (each per-status variant checked too). */
export function agentActionProblems(p: StringMap): string[] {
  const problems: string[] = [];
  // Variants: the plain property and every `name.STATUS`.
  const variants = (name: string) => Object.keys(p).filter((k) => k === name || k.startsWith(`${name}.`));
  const runs = variants("run");
  if (runs.length === 0) problems.push(`run is required: one of ${AGENT_RUN_KINDS.join(", ")}`);
  const kinds = new Set<string>();
  for (const k of runs) {
    if (!AGENT_RUN_KINDS.includes(p[k] as AgentRunKind)) problems.push(`${k} must be one of ${AGENT_RUN_KINDS.join(", ")}`);
    else kinds.add(p[k]!);
  }
  if (kinds.has("command")) {
    if (variants("command").length === 0) problems.push("command is required when run is command");
  }
  for (const k of variants("command")) {
    try {
      parseCommand(p[k]!);
    } catch (e) {
      problems.push(`${k}: ${(e as Error).message}`);
    }
  }
  for (const k of variants("timeout")) if (positiveInt(p[k], 1) === undefined) problems.push(`${k} must be a positive number of milliseconds`);
  if (kinds.has("webhook") && variants("url").length === 0) problems.push("url is required when run is webhook");
  for (const k of variants("url")) if (!isHttpUrl(p[k])) problems.push(`${k} must be an http or https URL`);
  for (const k of variants("method")) if (!WEBHOOK_METHODS.includes(p[k]!.toUpperCase())) problems.push(`${k} must be one of ${WEBHOOK_METHODS.join(", ")}`);
  for (const k of variants("retries")) if (!/^\d{1,2}$/.test(p[k]!)) problems.push(`${k} must be a number from 0 to 99`);
  for (const k of variants("facility")) if (!SYSLOG_FACILITIES.includes(p[k] as (typeof SYSLOG_FACILITIES)[number])) problems.push(`${k} must be a syslog facility (${SYSLOG_FACILITIES.join(", ")})`);
  for (const k of variants("level")) if (!SYSLOG_LEVELS.includes(p[k] as (typeof SYSLOG_LEVELS)[number])) problems.push(`${k} must be a syslog level (${SYSLOG_LEVELS.join(", ")})`);
  for (const k of variants("tag")) if (!/^[\w.-]{1,32}$/.test(p[k]!)) problems.push(`${k} must be 1 to 32 letters, digits, '.', '_' or '-'`);
  return [...new Set(problems)];
}
