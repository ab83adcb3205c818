import type { Action, StringMap } from "../../../src/alerts/model.ts";
import { compact } from "../../../src/http/json.ts";
import { type ActionPlugin, positiveInt, propertyFor } from "./plugin.ts";

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_RETRIES = 2;
const METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"];

export interface WebhookOptions {
  /** First pause between attempts; doubled after each retry. */
  retryDelayMs?: number;
}

function isHttpUrl(s: string | undefined): boolean {
  if (!s) return false;
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** Worth another attempt: the receiver may recover (overload, restart, gateway trouble). */
const retriable = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Calls a URL with the alert or event as JSON (upstream's webhook plugin). `timeout` bounds
 * each attempt; `retries` (our addition) repeats failed attempts with a growing pause.
 */
export function webhookPlugin(opts: WebhookOptions = {}): ActionPlugin {
  const retryDelay = opts.retryDelayMs ?? 500;
  return {
    name: "webhook",
    properties: ["url", "method", "timeout", "retries"],
    check(p: StringMap) {
      const problems: string[] = [];
      if (!isHttpUrl(p.url)) problems.push("url must be an http or https URL");
      if (p.method !== undefined && !METHODS.includes(p.method.toUpperCase())) problems.push(`method must be one of ${METHODS.join(", ")}`);
      if (positiveInt(p.timeout, DEFAULT_TIMEOUT_MS) === undefined) problems.push("timeout must be a positive number of milliseconds");
      if (p.retries !== undefined && !/^\d{1,2}$/.test(p.retries)) problems.push("retries must be a number from 0 to 99");
      return problems;
    },
    async run(action: Action) {
      const status = (action.event as { status?: string } | undefined)?.status;
      const url = propertyFor(action.properties, "url", status);
      if (!isHttpUrl(url)) throw new Error(`webhook url is missing or invalid: ${url}`);
      const method = (propertyFor(action.properties, "method", status) ?? "POST").toUpperCase();
      const timeout = positiveInt(propertyFor(action.properties, "timeout", status), DEFAULT_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
      const retries = Number(propertyFor(action.properties, "retries", status) ?? DEFAULT_RETRIES);
      const body = method === "GET" ? undefined : JSON.stringify(compact(action.event ?? {}));
      let lastError = "";
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) await Bun.sleep(retryDelay * 2 ** (attempt - 1));
        try {
          const res = await fetch(url!, {
            method,
            headers: { "Content-Type": "application/json" },
            body,
            signal: AbortSignal.timeout(timeout),
          });
          await res.arrayBuffer().catch(() => undefined);
          if (res.status < 400) return;
          lastError = `${method} ${url} answered ${res.status}`;
          if (!retriable(res.status)) break;
        } catch (e) {
          lastError = `${method} ${url} failed: ${(e as Error).message}`;
        }
      }
      throw new Error(lastError);
    },
  };
}
