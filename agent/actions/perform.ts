import type { ActionsConfig } from "../../src/agent-config/actions.ts";
import { agentRunKind, parseCommand, type SYSLOG_FACILITIES, type SYSLOG_LEVELS } from "../../src/alerts/actions/agent-plugin.ts";
import { positiveInt, propertyFor } from "../../src/alerts/actions/plugin.ts";
import { fillTemplate, headline, templateValues } from "../../src/alerts/actions/template.ts";
import { callWebhook } from "../../src/alerts/actions/webhook.ts";
import type { Action, Alert } from "../../src/alerts/model.ts";
import { compact } from "../../src/http/json.ts";
import type { Logger } from "../../src/log/logger.ts";
import { allowedCommand, allowedSummary, urlAllowed } from "./allow-list.ts";
import { COMMAND_PATH, runCommand } from "./command.ts";
import { formatSyslog, levelOf, type SyslogLine, writeSyslog } from "./syslog.ts";

/** What came of an action: the history's result and one line saying why. */
export interface Outcome {
  result: "PROCESSED" | "FAILED";
  message: string;
  output?: string;
}

/** An action the configuration allows, ready to start; or why it may not run. */
export type Prepared = { refused: string } | { start(): Promise<Outcome> };

export interface PerformContext {
  config: ActionsConfig;
  feed: string;
  log: Logger;
}

const DEFAULT_TIMEOUT_MS = { command: 10_000, webhook: 5000, syslog: 5000 };

/** The alert's fields as a command's environment: OUTPOST_EVENT_ID, OUTPOST_STATUS... (docs/local-triggers.md). */
export function commandEnvironment(action: Action, feed: string): Record<string, string> {
  const v = templateValues(action);
  const e = action.event as Partial<Alert> | undefined;
  // The value that made the trigger fire (or resolve): the last evaluation of its first condition.
  const sets = e?.status === "RESOLVED" && e.resolvedEvalSets?.length ? e.resolvedEvalSets : e?.evalSets;
  const last = sets?.at(-1)?.[0] as { value?: unknown; dataId?: string; condition?: { dataId?: string } } | undefined;
  const env: Record<string, string> = {
    PATH: COMMAND_PATH,
    LANG: "C.UTF-8",
    OUTPOST_EVENT_ID: v.id ?? "",
    OUTPOST_EVENT_TYPE: v.eventType ?? "",
    OUTPOST_STATUS: v.status ?? "",
    OUTPOST_SEVERITY: v.severity ?? "",
    OUTPOST_CATEGORY: v.category ?? "",
    OUTPOST_TEXT: v.text ?? "",
    OUTPOST_CTIME: v.ctime ?? "",
    OUTPOST_TRIGGER_ID: v.triggerId ?? "",
    OUTPOST_TRIGGER_NAME: v.triggerName ?? "",
    OUTPOST_TRIGGER_DESCRIPTION: v.triggerDescription ?? "",
    OUTPOST_TENANT: v.tenantId ?? "",
    OUTPOST_FEED: feed,
    OUTPOST_ACTION_ID: action.actionId,
  };
  const dataId = last?.dataId ?? last?.condition?.dataId;
  if (dataId !== undefined) env.OUTPOST_DATA_ID = String(dataId);
  if (last?.value !== undefined) env.OUTPOST_VALUE = String(last.value);
  return env;
}

/**
 * Checks an action against the agent's configuration and prepares it: which of the plugin's
 * three kinds it is, what it runs or calls, and its timeout, cut to `max_timeout`. Nothing
 * happens on the host until `start()`.
 */
export function prepareAction(action: Action, ctx: PerformContext): Prepared {
  const p = action.properties ?? {};
  const status = (action.event as Partial<Alert> | undefined)?.status;
  const kind = agentRunKind(p, status);
  if (!kind) return { refused: "refused: the definition names nothing to run (property run)" };
  const timeoutMs = Math.min(positiveInt(propertyFor(p, "timeout", status), DEFAULT_TIMEOUT_MS[kind]) ?? DEFAULT_TIMEOUT_MS[kind], ctx.config.maxTimeoutMs);
  switch (kind) {
    case "command": {
      let argv: string[];
      try {
        argv = parseCommand(propertyFor(p, "command", status) ?? "");
      } catch (e) {
        return { refused: `refused: ${(e as Error).message}` };
      }
      const allowed = allowedCommand(argv, ctx.config);
      if (!allowed) return { refused: `refused: command ${JSON.stringify(argv)} is ${allowedSummary(ctx.config, "command")}` };
      return {
        start: async () => {
          const r = await runCommand({
            argv,
            env: { ...allowed.env, ...commandEnvironment(action, ctx.feed) },
            stdin: JSON.stringify(compact(action.event ?? {})),
            timeoutMs,
            outputLimit: ctx.config.outputLimit,
          });
          const what = `${argv[0]}`;
          if (r.timedOut) return { result: "FAILED", message: `${what} did not end within ${timeoutMs} ms: stopped (${r.signal ?? "exited"})`, output: r.output };
          if (r.signal) return { result: "FAILED", message: `${what} was killed by ${r.signal}`, output: r.output };
          return { result: r.exitCode === 0 ? "PROCESSED" : "FAILED", message: `${what} exited with ${r.exitCode}`, output: r.output };
        },
      };
    }
    case "webhook": {
      const url = propertyFor(p, "url", status) ?? "";
      if (!urlAllowed(url, ctx.config)) return { refused: `refused: URL ${url} is ${allowedSummary(ctx.config, "webhook")}` };
      // One call per firing unless the definition asks for retries; a redirect is not followed.
      const call: Action = { ...action, properties: { ...p, timeout: String(timeoutMs) } };
      return {
        start: async () => {
          try {
            return { result: "PROCESSED", message: await callWebhook(call, { defaultRetries: 0, redirect: "manual" }) };
          } catch (e) {
            return { result: "FAILED", message: (e as Error).message };
          }
        },
      };
    }
    case "syslog": {
      if (!ctx.config.syslog) return { refused: `refused: writing to the system log: ${allowedSummary(ctx.config, "syslog")}` };
      const v = templateValues(action);
      const template = propertyFor(p, "message", status);
      const line: SyslogLine = {
        facility: (propertyFor(p, "facility", status) ?? "daemon") as (typeof SYSLOG_FACILITIES)[number],
        level: (propertyFor(p, "level", status) ?? levelOf(v.eventType ?? "", v.status ?? "", v.severity ?? "")) as (typeof SYSLOG_LEVELS)[number],
        tag: propertyFor(p, "tag", status) ?? "outpost",
        message: template ? fillTemplate(template, v) : `${headline(v)}: ${v.text} (${v.id})`,
      };
      return {
        start: async () => {
          const text = formatSyslog(line, new Date(), process.pid);
          try {
            const r = await writeSyslog(ctx.config.syslogSocket, text, timeoutMs);
            if (r.written === "agent-log") ctx.log.warn(line.message, { syslog: line.level, tag: line.tag, why: r.detail });
            return { result: "PROCESSED", message: r.detail };
          } catch (e) {
            return { result: "FAILED", message: `system log: ${(e as Error).message}` };
          }
        },
      };
    }
  }
}
