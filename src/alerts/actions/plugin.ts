import type { Action, StringMap } from "../model.ts";

/** An action plugin: it validates action definitions and carries out actions. */
export interface ActionPlugin {
  readonly name: string;
  /**
   * Property names the plugin reads (GET /plugins/{name}). A definition's property must be one
   * of them or extend one with a dot suffix (`to.RESOLVED`, `mail.smtp.host`).
   */
  readonly properties: readonly string[];
  /** Problems with a definition's properties (missing required ones, unreadable values). */
  check(properties: StringMap): string[];
  /**
   * Run by the agent that evaluates the trigger, never by the collector (plugin `agent`): the
   * collector only checks and pushes the definitions, and records what the agent reports.
   */
  readonly runsOnAgent?: boolean;
  /** Carries out the action; resolves when done, rejects with the reason it failed. */
  run(action: Action): Promise<void>;
}

export function unknownProperties(plugin: Pick<ActionPlugin, "properties">, properties: StringMap): string[] {
  return Object.keys(properties).filter((k) => !plugin.properties.some((p) => k === p || k.startsWith(`${p}.`)));
}

/** A property, or its variant for the alert status (`to.RESOLVED` before `to`). */
export function propertyFor(properties: StringMap | undefined, name: string, status?: string): string | undefined {
  if (!properties) return undefined;
  const v = (status && properties[`${name}.${status}`]) || properties[name];
  return v === undefined || v.length === 0 ? undefined : v;
}

/** Milliseconds from a property, or the default; undefined when not a positive integer. */
export function positiveInt(v: string | undefined, dflt: number): number | undefined {
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
