import type { Action, StringMap } from "../model.ts";
import { compact } from "../../http/json.ts";
import { type ActionPlugin, positiveInt, propertyFor } from "./plugin.ts";

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_RETRIES = 2;
export const WEBHOOK_METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"];

export interface WebhookOptions {
  /** First pause between attempts; doubled after each retry. */
  retryDelayMs?: number;
  /** Attempts after the first when the definition has no `retries` (default 2). */
  defaultRetries?: number;
  /** `manual`: a redirect is the answer (an agent calls only the URLs it allows, not where they point). */
  redirect?: "follow" | "manual";
}

export function isHttpUrl(s: string | undefined): boolean {
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

/** Problems with the webhook properties `url`, `method`, `timeout` and `retries`. */
export function webhookProblems(p: StringMap): string[] {
  const problems: string[] = [];
  if (!isHttpUrl(p.url)) problems.push("url must be an http or https URL");
  if (p.method !== undefined && !WEBHOOK_METHODS.includes(p.method.toUpperCase())) problems.push(`method must be one of ${WEBHOOK_METHODS.join(", ")}`);
  if (positiveInt(p.timeout, DEFAULT_TIMEOUT_MS) === undefined) problems.push("timeout must be a positive number of milliseconds");
  if (p.retries !== undefined && !/^\d{1,2}$/.test(p.retries)) problems.push("retries must be a number from 0 to 99");
  return problems;
}

/** The URL an action calls (its variant for the alert's status first). */
export function webhookUrl(action: Action): string | undefined {
  return propertyFor(action.properties, "url", (action.event as { status?: string } | undefined)?.status);
}

/**
 * Calls the action's URL with its alert or event as JSON. `timeout` bounds each attempt;
 * `retries` repeats failed attempts with a growing pause. Resolves with what answered
 * (`POST url answered 200`), rejects with why it failed.
 */
export async function callWebhook(action: Action, opts: WebhookOptions = {}): Promise<string> {
  const status = (action.event as { status?: string } | undefined)?.status;
  const url = webhookUrl(action);
  if (!isHttpUrl(url)) throw new Error(`webhook url is missing or invalid: ${url}`);
  const method = (propertyFor(action.properties, "method", status) ?? "POST").toUpperCase();
  const timeout = positiveInt(propertyFor(action.properties, "timeout", status), DEFAULT_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS;
  const retries = Number(propertyFor(action.properties, "retries", status) ?? opts.defaultRetries ?? DEFAULT_RETRIES);
  const retryDelay = opts.retryDelayMs ?? 500;
  const body = method === "GET" ? undefined : JSON.stringify(compact(action.event ?? {}));
  let lastError = "";
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await Bun.sleep(retryDelay * 2 ** (attempt - 1));
    try {
      const res = await fetch(url!, {
        method,
        headers: { "Content-Type": "application/json" },
        body,
        redirect: opts.redirect ?? "follow",
        signal: AbortSignal.timeout(timeout),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status < 400) return `${method} ${url} answered ${res.status}`;
      lastError = `${method} ${url} answered ${res.status}`;
      if (!retriable(res.status)) break;
    } catch (e) {
      lastError = `${method} ${url} failed: ${(e as Error).message}`;
    }
  }
  throw new Error(lastError);
}

/** Calls a URL with the alert or event as JSON (upstream's webhook plugin; `retries` is our addition). */
export function webhookPlugin(opts: WebhookOptions = {}): ActionPlugin {
  return {
    name: "webhook",
    properties: ["url", "method", "timeout", "retries"],
    check: webhookProblems,
    async run(action: Action) {
      await callWebhook(action, opts);
    },
  };
}
