import type { Logger } from "../log/logger.ts";
import type { OptionSpec, OptionValues } from "./options.ts";
import type { ReloadRegistry } from "./reload.ts";

/** Values a program lays over its local configuration (the agent's remote configuration). */
export type Overlay = (local: OptionValues) => OptionValues;

export interface PartFailure {
  what: string;
  err: string;
}

/**
 * The options a running program uses, and the two ways they change while it runs: SIGHUP
 * re-reads the local configuration (flags, environment, TOML file), and the program may lay
 * values of its own over it (the agent's remote configuration, docs/fleet.md). One change at a
 * time, each through the reload registry, so both always start from what is in effect.
 */
export class LiveOptions {
  private local: OptionValues;
  private current: OptionValues;
  private overlay: Overlay = (v) => v;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly specs: readonly OptionSpec[],
    private readonly registry: ReloadRegistry,
    initial: OptionValues,
    private readonly log: Logger,
  ) {
    this.local = initial;
    this.current = initial;
  }

  /** The values in effect. */
  get values(): OptionValues {
    return this.current;
  }

  /** The local configuration as last read (without the overlay). */
  get localValues(): OptionValues {
    return this.local;
  }

  /** At start: the program started with `overlay` over the local values; nothing is applied. */
  adopt(overlay: Overlay): void {
    this.overlay = overlay;
    this.current = overlay(this.local);
  }

  /** SIGHUP: new local values, under the current overlay. */
  reloadLocal(next: OptionValues): Promise<void> {
    return this.serial(async () => {
      this.local = next;
      this.current = await this.registry.apply(this.specs, this.current, this.overlay(next), this.log);
    });
  }

  /**
   * A new overlay, all or nothing: when a part fails to apply, the parts already applied are put
   * back and the previous overlay stays. Resolves to the failures (none when it applied).
   */
  setOverlay(overlay: Overlay): Promise<PartFailure[]> {
    return this.serial(async () => {
      const before = this.current;
      const r = await this.registry.applyChanges(this.specs, before, overlay(this.local), this.log);
      if (r.failed.length === 0) {
        this.overlay = overlay;
        this.current = r.effective;
        return [];
      }
      this.current = (await this.registry.applyChanges(this.specs, r.effective, before, this.log)).effective;
      return r.failed;
    });
  }

  private serial<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
