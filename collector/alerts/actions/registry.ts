import { type EmailOptions, emailPlugin } from "./email.ts";
import { filePlugin } from "./file.ts";
import { AGENT_PLUGIN, AGENT_PLUGIN_PROPERTIES, agentActionProblems } from "../../../src/alerts/actions/agent-plugin.ts";
import type { ActionPlugin } from "../../../src/alerts/actions/plugin.ts";
import { type WebhookOptions, webhookPlugin } from "../../../src/alerts/actions/webhook.ts";

export interface PluginOptions {
  email?: EmailOptions;
  webhook?: WebhookOptions;
}

/** The deployed action plugins, by name. */
export class PluginRegistry {
  private readonly byName = new Map<string, ActionPlugin>();

  constructor(plugins: readonly ActionPlugin[]) {
    for (const p of plugins) this.byName.set(p.name, p);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  get(name: string): ActionPlugin | undefined {
    return this.byName.get(name);
  }
}

/** Actions the agents run (docs/local-triggers.md): checked and pushed here, never run here. */
export function agentPlugin(): ActionPlugin {
  return {
    name: AGENT_PLUGIN,
    properties: AGENT_PLUGIN_PROPERTIES,
    runsOnAgent: true,
    check: agentActionProblems,
    run: () => Promise.reject(new Error("actions of plugin agent are run by the agent that evaluates the trigger")),
  };
}

/** The plugins the collector ships: email, file, webhook, and agent (run by agents). */
export function defaultPlugins(opts: PluginOptions = {}): PluginRegistry {
  return new PluginRegistry([agentPlugin(), emailPlugin(opts.email), filePlugin(), webhookPlugin(opts.webhook)]);
}
