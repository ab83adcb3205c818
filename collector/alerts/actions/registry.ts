import { type EmailOptions, emailPlugin } from "./email.ts";
import { filePlugin } from "./file.ts";
import type { ActionPlugin } from "./plugin.ts";
import { type WebhookOptions, webhookPlugin } from "./webhook.ts";

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

/** The plugins the collector ships: email, file, webhook. */
export function defaultPlugins(opts: PluginOptions = {}): PluginRegistry {
  return new PluginRegistry([emailPlugin(opts.email), filePlugin(), webhookPlugin(opts.webhook)]);
}
