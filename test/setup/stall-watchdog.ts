/**
 * A test file whose worker stops answering fails the run within minutes, named, with the
 * worker's native stacks, instead of holding the run until CI's own limit. Why: one CI run sat
 * silent for 90 minutes after its last file had printed (2026-11-29); vitest's test and hook
 * timeouts cannot fire in a worker whose event loop is blocked (a synchronous wait on a child
 * whose exit the runtime never reports is one known way: docs/testing.md, "Stalled files").
 *
 * The reporter runs in vitest's main process. Each worker leaves its pid and test file in the
 * watch folder (test/setup/worker-pid.ts). A file that runs longer than the limit has its worker's
 * process tree printed (state, kernel wait channel, command), its stacks (gdb, when installed),
 * then the tree killed: vitest counts the file as failed and the run goes on. The stalled files
 * are listed in the watch folder for test/setup/run-suite.ts, which runs them once more.
 */
import { readdirSync, readFileSync, appendFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export const WATCH_DIR_ENV = "TEST_STALL_WATCH_DIR";
export const STALL_MINUTES_ENV = "TEST_STALL_MINUTES";
export const STALLED_FILE = "stalled.tsv";
/** 3× the slowest file's time on a loaded 2-core machine (test/release: about 5 minutes). */
const DEFAULT_STALL_MINUTES = 15;

interface Proc {
  pid: number;
  ppid: number;
  state: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name is in parentheses and may hold spaces: the fields follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), state: fields[0]! };
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, parents first. */
export function processTree(root: number): Proc[] {
  const all: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const p = readProc(Number(name));
    if (p) all.push(p);
  }
  const tree: Proc[] = [];
  const top = all.find((p) => p.pid === root);
  if (!top) return tree;
  tree.push(top);
  for (let i = 0; i < tree.length; i++) for (const p of all) if (p.ppid === tree[i]!.pid) tree.push(p);
  return tree;
}

function describe(p: Proc): string {
  const read = (f: string) => {
    try {
      return readFileSync(`/proc/${p.pid}/${f}`, "latin1");
    } catch {
      return "?";
    }
  };
  const cmd = read("cmdline").split("\0").join(" ").trim().slice(0, 200);
  return `  pid ${p.pid} (parent ${p.ppid}) state ${p.state} wchan ${read("wchan") || "-"}: ${cmd}`;
}

/** The native stacks of every thread of `pid`, by gdb when it is installed; at most 60 s. */
async function nativeStacks(pid: number): Promise<string> {
  try {
    const gdb = Bun.spawn(["gdb", "-batch", "-nx", "-p", String(pid), "-ex", "thread apply all bt 12"], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => gdb.kill("SIGKILL"), 60_000);
    const text = await new Response(gdb.stdout).text();
    clearTimeout(timer);
    return text.split("\n").filter((l) => /^(Thread|#)/.test(l)).slice(0, 400).join("\n");
  } catch (e) {
    return `(no stacks: ${(e as Error).message})`;
  }
}

export class StallWatchdog implements Reporter {
  private readonly running = new Map<string, { module: TestModule; since: number }>();
  private readonly waiting = new Set<string>();
  private lastEvent = Date.now();
  private readonly handled = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly limitMs: number;

  constructor(
    private readonly dir = process.env[WATCH_DIR_ENV],
    minutes = Number(process.env[STALL_MINUTES_ENV] || DEFAULT_STALL_MINUTES),
  ) {
    this.limitMs = minutes * 60_000;
  }

  onInit(): void {
    if (!this.dir) return;
    this.timer = setInterval(() => void this.check(), Math.min(15_000, this.limitMs / 4));
    this.timer.unref();
  }

  onTestModuleQueued(module: TestModule): void {
    this.waiting.add(module.moduleId);
    this.lastEvent = Date.now();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.moduleId, { module, since: Date.now() });
    this.lastEvent = Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.moduleId);
    this.waiting.delete(module.moduleId);
    this.lastEvent = Date.now();
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
  }

  /** The pid of the worker that left `file` in the watch folder, if any. */
  private workerOf(file: string): number | undefined {
    for (const name of readdirSync(this.dir!)) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(join(this.dir!, name), "utf8") === file && readProc(Number(name))) return Number(name);
      } catch {
        // The worker ended meanwhile.
      }
    }
    return undefined;
  }

  /** The test the worker began last (its events do not reach this process once it is blocked). */
  private testOf(pid: number): string {
    try {
      return readFileSync(join(this.dir!, `${pid}.test`), "utf8");
    } catch {
      return "(none begun)";
    }
  }

  private async check(): Promise<void> {
    const now = Date.now();
    for (const [file, { module, since }] of this.running) {
      if (now - since < this.limitMs || this.handled.has(file)) continue;
      this.handled.add(file);
      const pid = this.workerOf(file);
      const head = `stalled: ${relative(process.cwd(), file)} (project ${module.project.name}) has run for ${Math.round((now - since) / 60_000)} min, in test ${JSON.stringify(pid === undefined ? "?" : this.testOf(pid))}; its worker is ${pid ?? "not found"}`;
      appendFileSync(join(this.dir!, STALLED_FILE), `${module.project.name}\t${file}\n`);
      await this.report(head, pid);
    }
    // Files waiting while nothing started or ended for as long: a worker stuck before its file
    // was reported started (its setup, say). Its file cannot be named for a second run.
    if (this.waiting.size > this.running.size && this.running.size === 0 && now - this.lastEvent >= this.limitMs) {
      this.lastEvent = now;
      for (const p of processTree(process.pid).filter((p) => p.ppid === process.pid)) {
        if (!/workers\/forks\.js/.test(describe(p))) continue;
        await this.report(`stalled: a worker (${p.pid}) with no file started; ${this.waiting.size} file(s) wait`, p.pid);
      }
    }
  }

  /** Prints `head`, then the worker's processes and stacks, and kills them, children first. */
  private async report(head: string, pid: number | undefined): Promise<void> {
    const out = [`\n${head}`];
    if (pid !== undefined) {
      const tree = processTree(pid);
      out.push("its processes:", ...tree.map(describe), "its worker's threads:", await nativeStacks(pid));
      // Children first, so that none is left behind holding ports and folders.
      for (const p of tree.reverse()) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      out.push(`killed ${tree.length} process(es); vitest counts the file as failed, and the run goes on`);
    }
    process.stderr.write(`${out.join("\n")}\n`);
  }
}
