import type { ActionsConfig, AllowedCommand } from "../../src/agent-config/actions.ts";

/**
 * What the agent's own configuration allows ([agent.actions], src/agent-config/actions.ts):
 * the only gate between a pushed definition and the host. Nothing is allowed by default.
 */

/** The allowed entry an argument vector matches: exactly, or as a prefix where extra arguments are allowed. */
export function allowedCommand(argv: readonly string[], cfg: ActionsConfig): AllowedCommand | undefined {
  return cfg.commands.find((c) => {
    if (argv.length < c.argv.length || (argv.length > c.argv.length && !c.extraArgs)) return false;
    return c.argv.every((a, i) => argv[i] === a);
  });
}

/**
 * True when the URL is allowed: equal to an allowed URL once both are normalised, or below one
 * ending with `/`. The URL parser resolves `..` and percent-encoding first, so neither can climb
 * out of an allowed folder; user info, another port or scheme never match.
 */
export function urlAllowed(url: string, cfg: ActionsConfig): boolean {
  let href: string;
  try {
    href = new URL(url).href;
  } catch {
    return false;
  }
  return cfg.webhooks.some((w) => href === w || (w.endsWith("/") && href.startsWith(w)));
}

/** One line naming what is allowed, for refusals. */
export function allowedSummary(cfg: ActionsConfig, kind: "command" | "webhook" | "syslog"): string {
  if (kind === "syslog") return "[agent.actions] syslog is off";
  const n = kind === "command" ? cfg.commands.length : cfg.webhooks.length;
  return n === 0 ? `[agent.actions] allows no ${kind}s` : `not among the ${n} ${kind}s [agent.actions] allows`;
}
