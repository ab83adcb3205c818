import type { Logger } from "../log/logger.ts";
import type { OptionSpec, OptionValues } from "./options.ts";

/**
 * Something a running program can change without a restart, applied on SIGHUP.
 * Register with `ctx.reload.register(...)` from the program's start function.
 */
export interface Reloadable {
  /** What is reloaded, for the log: "log level", "host metric filters", "agent credentials". */
  what: string;
  /** Options it applies: it runs when one of them changed. */
  options?: readonly string[];
  /**
   * Run on every SIGHUP, even when no option changed: for what lives in files the options
   * only name (credentials files, TLS certificates), which may have changed on disk.
   */
  always?: boolean;
  /** Applies the new values; throwing keeps the old state of this part (logged, never fatal). */
  apply(values: OptionValues): void | Promise<void>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The reloadable parts of a running program, and the SIGHUP procedure that applies them. */
export class ReloadRegistry {
  private readonly parts: Reloadable[] = [];

  register(part: Reloadable): () => void {
    this.parts.push(part);
    return () => {
      const i = this.parts.indexOf(part);
      if (i >= 0) this.parts.splice(i, 1);
    };
  }

  /** Reloadable options no registered part applies (a programming error, caught by tests). */
  uncovered(specs: readonly OptionSpec[]): string[] {
    const covered = new Set(this.parts.flatMap((p) => p.options ?? []));
    return specs.filter((s) => s.reloadable && !covered.has(s.name)).map((s) => s.name);
  }

  /**
   * Applies `next` over `current`: each part whose options changed (or that always reloads)
   * is applied; options that changed but cannot change at run time are reported and keep
   * their running value. Returns the values now in effect.
   */
  async apply(specs: readonly OptionSpec[], current: OptionValues, next: OptionValues, log: Logger): Promise<OptionValues> {
    return (await this.applyChanges(specs, current, next, log)).effective;
  }

  /** As `apply`, also saying which parts failed (and why), for a caller that reports it (remote configuration). */
  async applyChanges(specs: readonly OptionSpec[], current: OptionValues, next: OptionValues, log: Logger): Promise<{ effective: OptionValues; failed: { what: string; err: string }[] }> {
    const changed = new Set(specs.filter((s) => !same(current[s.name], next[s.name])).map((s) => s.name));
    const effective: OptionValues = { ...next };
    const applied: string[] = [];
    const failed: { what: string; err: string }[] = [];
    for (const part of [...this.parts]) {
      if (!part.always && !(part.options ?? []).some((o) => changed.has(o))) continue;
      try {
        await part.apply(next);
        applied.push(part.what);
      } catch (e) {
        log.error(`reloading ${part.what} failed; keeping the previous one`, { err: (e as Error).message });
        failed.push({ what: part.what, err: (e as Error).message });
        for (const o of part.options ?? []) effective[o] = current[o];
      }
    }
    const covered = new Set(this.parts.flatMap((p) => p.options ?? []));
    const restartOnly = [...changed].filter((o) => !covered.has(o));
    for (const o of restartOnly) {
      log.warn(`option ${o} changed; it takes effect at the next restart`);
      effective[o] = current[o];
    }
    log.info("configuration reloaded", { changed: [...changed].filter((o) => covered.has(o)), reloaded: applied });
    return { effective, failed };
  }
}
