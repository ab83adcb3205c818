/** PATH of a local command: the system's folders only, whatever the agent's own PATH holds. */
export const COMMAND_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** After the timeout's SIGTERM, how long a command has to exit before SIGKILL. */
const KILL_GRACE_MS = 2000;

export interface CommandRun {
  argv: string[];
  /** The whole environment of the command: nothing of the agent's (its secrets) is passed on. */
  env: Record<string, string>;
  /** Given on standard input (the alert as JSON). */
  stdin: string;
  timeoutMs: number;
  /** Bytes of standard output and error kept, together, at most. */
  outputLimit: number;
}

export interface CommandOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Standard output then standard error, cut to the limit. */
  output: string;
}

/**
 * Reads a stream until it ends or `stop` resolves, keeping at most `limit` bytes; the rest is
 * read and dropped, so the command never blocks on a full pipe.
 */
async function readCapped(stream: ReadableStream<Uint8Array>, limit: number, stop: Promise<void>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let kept = 0;
  const stopped = stop.then(() => undefined);
  for (;;) {
    const next = await Promise.race([reader.read(), stopped]);
    if (next === undefined) {
      // A grandchild that left the process group still holds the pipe: stop reading.
      void reader.cancel().catch(() => undefined);
      break;
    }
    if (next.done) break;
    if (kept < limit) {
      const take = next.value.subarray(0, limit - kept);
      parts.push(take);
      kept += take.length;
    }
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

/**
 * Runs an argument vector directly (no shell), in its own process group with the root folder
 * as working directory, and waits for it. At the timeout the group gets SIGTERM, then SIGKILL,
 * so a command's own children go too.
 */
export async function runCommand(r: CommandRun): Promise<CommandOutcome> {
  const proc = Bun.spawn(r.argv, {
    cwd: "/",
    env: r.env,
    stdin: new Blob([r.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let timedOut = false;
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid, signal);
    } catch {
      // already gone
    }
  };
  let kill: ReturnType<typeof setTimeout> | undefined;
  const term = setTimeout(() => {
    timedOut = true;
    group("SIGTERM");
    kill = setTimeout(() => group("SIGKILL"), KILL_GRACE_MS);
  }, r.timeoutMs);
  // Once the command has exited, its pipes get a second to drain.
  const drained = proc.exited.then(() => Bun.sleep(1000));
  const [out, err] = await Promise.all([readCapped(proc.stdout, r.outputLimit, drained), readCapped(proc.stderr, r.outputLimit, drained)]);
  const exitCode = await proc.exited;
  clearTimeout(term);
  if (kill) clearTimeout(kill);
  const dec = new TextDecoder();
  let output = dec.decode(out);
  const errText = dec.decode(err);
  if (errText.length > 0) output = `${output}${output.length > 0 && !output.endsWith("\n") ? "\n" : ""}${errText}`;
  // Together at most the limit, in characters too (a multi-byte character may have been cut in two).
  if (output.length > r.outputLimit) output = output.slice(0, r.outputLimit);
  return { exitCode: proc.signalCode ? null : exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode), timedOut, output };
}
