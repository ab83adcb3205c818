/**
 * The agent starts itself again, once, with the engine's settings (agent/runtime-env.ts,
 * src/runtime/restart-with-env.ts): the same process, arguments and environment plus
 * BUN_JSC_useFTLJIT=0; a value set by the operator is kept.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_RUNTIME_ENV } from "../../agent/runtime-env.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { Running, run } from "../helpers/program.ts";

const dirs: string[] = [];
const procs: Running[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) await p.stop("SIGTERM");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function environ(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const i = kv.indexOf("=");
    if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-agent-env-"));
  dirs.push(dir);
  const port = await freePort();
  // No broker listens there: the agent buffers, and answers on its local API all the same.
  const p = Running.start("agent", ["--tenant", "t", "--data-dir", dir, "--listen", `127.0.0.1:${port}`, "--broker", `mqtt://127.0.0.1:${await freePort()}`, "--log-level", "warn"], { env: { MARKER_FOR_TEST: "kept", ...env } });
  procs.push(p);
  await waitFor("the agent to answer", async () => ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200 ? true : undefined), 30_000, 100);
  return p;
}

describe("the agent's engine settings", () => {
  it("are in the agent's environment, with its own variables and arguments, in the process that was started", async () => {
    const p = await start();
    const env = environ(p.pid);
    expect(env.BUN_JSC_useFTLJIT).toBe(AGENT_RUNTIME_ENV.BUN_JSC_useFTLJIT);
    expect(env.MARKER_FOR_TEST).toBe("kept");
    expect(readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0")).toContain("--data-dir");
  });

  it("keep a value the operator set", async () => {
    const p = await start({ BUN_JSC_useFTLJIT: "1" });
    expect(environ(p.pid).BUN_JSC_useFTLJIT).toBe("1");
  });

  it("leave the exit code and output of a command as they were", async () => {
    const r = await run("agent", ["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
  });
});
