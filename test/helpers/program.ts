/**
 * The real programs as subprocesses (`bun collector/main.ts …`, `bun agent/main.ts …`), for
 * tests of what an operator sees: exit codes, the lines on stderr, signals.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";
import { waitFor } from "./ports.ts";

export const ROOT = join(import.meta.dirname, "../..");
export const PROGRAMS = { collector: join(ROOT, "collector/main.ts"), agent: join(ROOT, "agent/main.ts") } as const;
export type ProgramName = keyof typeof PROGRAMS;

/** The environment without the programs' own variables, so a test sees only what it sets. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("OUTPOST")) env[k] = v;
  return { ...env, ...extra };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (start-up failures, --version, commands). */
export async function runToEnd(cmd: string[], o: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: cleanEnv(o.env), cwd: o.cwd ?? ROOT });
  const timer = setTimeout(() => p.kill("SIGKILL"), o.timeoutMs ?? 30_000);
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export function run(program: ProgramName, args: string[], o: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return runToEnd([process.execPath, PROGRAMS[program], ...args], o);
}

/** A long-running program whose stderr lines are collected as they come. */
export class Running {
  readonly lines: string[] = [];
  private readonly p: Subprocess<"ignore", "pipe", "pipe">;
  readonly exited: Promise<number>;

  constructor(cmd: string[], o: { env?: Record<string, string>; cwd?: string } = {}) {
    this.p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: cleanEnv(o.env), cwd: o.cwd ?? ROOT });
    this.exited = this.p.exited;
    void this.collect();
  }

  static start(program: ProgramName, args: string[], o: { env?: Record<string, string>; cwd?: string } = {}): Running {
    return new Running([process.execPath, PROGRAMS[program], ...args], o);
  }

  private async collect(): Promise<void> {
    const dec = new TextDecoder();
    let rest = "";
    for await (const chunk of this.p.stderr) {
      rest += dec.decode(chunk, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      this.lines.push(...parts);
    }
    if (rest) this.lines.push(rest);
  }

  get pid(): number {
    return this.p.pid;
  }

  get running(): boolean {
    return this.p.exitCode === null && this.p.signalCode === null;
  }

  signal(sig: NodeJS.Signals): void {
    this.p.kill(sig);
  }

  /** The first line matching, waiting for it (fails if the program exits first). */
  async waitForLine(re: RegExp, timeoutMs = 20_000, from = 0): Promise<string> {
    return waitFor(
      `a line matching ${re}`,
      () => {
        const hit = this.lines.slice(from).find((l) => re.test(l));
        if (hit) return hit;
        if (!this.running) throw new Error(`exited (${this.p.exitCode ?? this.p.signalCode}):\n${this.lines.slice(-20).join("\n")}`);
        return undefined;
      },
      timeoutMs,
    );
  }

  /** Stops it (SIGKILL unless told otherwise) and waits. */
  async stop(sig: NodeJS.Signals = "SIGKILL"): Promise<number> {
    if (this.running) this.p.kill(sig);
    return this.exited;
  }
}

/** Reads the port from a "… listening address=HOST:PORT" line. */
export function portOf(line: string): number {
  const m = /address=\S*:(\d+)/.exec(line);
  if (!m) throw new Error(`no address in: ${line}`);
  return Number(m[1]);
}

/**
 * Reads `stream` until its text so far satisfies `done`; throws with that text if the stream
 * ends first. A loop on `reader.read()` that ignores the end spins on resolved reads forever,
 * never letting the test's timeout run (docs/testing.md, "Stalled files").
 */
export async function readUntil(stream: ReadableStream<Uint8Array>, done: (text: string) => boolean, what: string): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!done(text)) {
      const r = await reader.read();
      if (r.done) throw new Error(`the stream ended before ${what}; it said:\n${text}`);
      text += decoder.decode(r.value, { stream: true });
    }
    return text;
  } finally {
    reader.releaseLock();
  }
}
