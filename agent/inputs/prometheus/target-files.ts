/**
 * A scrape job's target files (Prometheus' file_sd shape, src/prometheus/file-sd.ts), checked
 * every refresh interval and re-read when one changed (size or modification time), appeared or
 * disappeared. A glob in the last path element (`targets/*.json`) picks every matching file.
 * A file that cannot be read or parsed keeps the targets it had, and says why once a minute.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseTargetFile, type TargetGroup, targetFileFormat } from "../../../src/prometheus/file-sd.ts";

interface FileState {
  stamp: string;
  groups: TargetGroup[];
}

export class TargetFiles {
  private readonly files = new Map<string, FileState>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly patterns: readonly string[],
    private readonly refreshMs: number,
    private readonly changed: () => void,
    private readonly warn: (key: string, message: string, fields: Record<string, unknown>) => void,
  ) {}

  /** Reads the files now, then checks them every refresh interval. */
  start(): void {
    this.check();
    this.timer = setInterval(() => {
      if (this.check()) this.changed();
    }, this.refreshMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The target groups of every file, in file order. */
  groups(): TargetGroup[] {
    return [...this.files.keys()].sort().flatMap((f) => this.files.get(f)!.groups);
  }

  private paths(): string[] {
    const out: string[] = [];
    for (const p of this.patterns) {
      const base = basename(p);
      if (!/[*?[]/.test(base)) {
        out.push(p);
        continue;
      }
      const glob = new Bun.Glob(base);
      let names: string[] = [];
      try {
        names = readdirSync(dirname(p));
      } catch (e) {
        this.warn(p, "cannot list the folder of target files", { pattern: p, err: (e as NodeJS.ErrnoException).code ?? (e as Error).message });
      }
      for (const n of names.sort()) if (glob.match(n)) out.push(join(dirname(p), n));
    }
    return out;
  }

  /** Re-reads what changed; true when the targets may have changed. */
  check(): boolean {
    let changed = false;
    const present = new Set(this.paths());
    for (const f of [...this.files.keys()]) {
      if (present.has(f)) continue;
      this.files.delete(f);
      changed = true;
    }
    for (const f of present) {
      let stamp: string;
      try {
        const st = statSync(f);
        stamp = `${st.size}:${st.mtimeMs}`;
      } catch (e) {
        if (this.files.delete(f)) changed = true;
        // A named file that is missing is worth saying; a file that matched a glob and went is not.
        if (!/[*?[]/.test(basename(f))) this.warn(f, "cannot read a target file", { file: f, err: (e as NodeJS.ErrnoException).code ?? (e as Error).message });
        continue;
      }
      if (this.files.get(f)?.stamp === stamp) continue;
      const format = targetFileFormat(f);
      try {
        if (!format) throw new Error("target files end in .json, .yml or .yaml");
        this.files.set(f, { stamp, groups: parseTargetFile(readFileSync(f, "utf8"), format) });
        changed = true;
      } catch (e) {
        this.warn(f, "target file not applied; its previous targets are kept", { file: f, err: (e as Error).message });
      }
    }
    return changed;
  }
}
