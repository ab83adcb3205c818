/**
 * The collector starts itself again, once, with the allocator's settings (collector/
 * allocator-env.ts, issue 28): the same process, arguments and environment plus
 * MIMALLOC_PURGE_DELAY and MIMALLOC_PURGE_HOLES; a value set by the operator is kept, and when
 * both are set nothing is started again.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ALLOCATOR_ENV } from "../../collector/allocator-env.ts";
import { run, Running } from "../helpers/program.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

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

async function start(env: Record<string, string> = {}): Promise<{ p: Running; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-allocator-"));
  dirs.push(dir);
  const port = await freePort();
  const p = Running.start("collector", ["--data-dir", dir, "--http-port", String(port), "--mqtt-port", "0"], { env: { MARKER_FOR_TEST: "kept", ...env } });
  procs.push(p);
  await waitFor("the collector to answer", async () => ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200 ? true : undefined), 30_000, 100);
  return { p, port };
}

describe("the allocator's setting", () => {
  it("is in the collector's environment, with its own variables and arguments, in the process that was started", async () => {
    const { p } = await start();
    const env = environ(p.pid);
    expect(env.MIMALLOC_PURGE_DELAY).toBe("1000");
    expect(env.MIMALLOC_PURGE_HOLES).toBe("0");
    expect(Object.keys(ALLOCATOR_ENV).sort()).toEqual(["MIMALLOC_PURGE_DELAY", "MIMALLOC_PURGE_HOLES"]);
    expect(env.MARKER_FOR_TEST).toBe("kept");
    expect(readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0")).toContain("--mqtt-port");
  });

  it("keeps a value the operator set, and adds the other", async () => {
    const { p } = await start({ MIMALLOC_PURGE_DELAY: "100" });
    expect(environ(p.pid).MIMALLOC_PURGE_DELAY).toBe("100");
    expect(environ(p.pid).MIMALLOC_PURGE_HOLES).toBe("0");
    const other = await start({ MIMALLOC_PURGE_HOLES: "1" });
    expect(environ(other.p.pid).MIMALLOC_PURGE_HOLES).toBe("1");
    expect(environ(other.p.pid).MIMALLOC_PURGE_DELAY).toBe("1000");
  });

  it("leaves the exit code and output of a command as they were", async () => {
    const r = await run("collector", ["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
  });
});
