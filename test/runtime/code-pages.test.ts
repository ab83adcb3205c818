import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { codeMappings, dropCodePages } from "../../src/runtime/code-pages.ts";
import { freePort } from "../helpers/ports.ts";
import { Running, portOf } from "../helpers/program.ts";

/** Resident bytes of the executable's code in process `pid`. */
function codeResident(pid: number | "self"): number {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  return codeMappings(readFileSync(`/proc/${pid}/smaps`, "utf8"), exe).reduce((a, m) => a + m.rss, 0);
}

describe("the executable's code pages (src/runtime/code-pages.ts)", () => {
  it("finds only the executable's read-and-execute mappings, and marks those with pages of their own", () => {
    const smaps = [
      "55d0a0000000-55d0a1000000 r--p 00000000 fd:01 42 /usr/bin/bun",
      "Rss:                4096 kB",
      "Anonymous:             0 kB",
      "55d0a1000000-55d0a5000000 r-xp 01000000 fd:01 42 /usr/bin/bun",
      "Rss:               30000 kB",
      "Private_Dirty:         0 kB",
      "Anonymous:             0 kB",
      "55d0a5000000-55d0a5100000 r-xp 05000000 fd:01 42 /usr/bin/bun",
      "Rss:                 100 kB",
      "Private_Dirty:         4 kB",
      "Anonymous:             4 kB",
      "7f0000000000-7f0000100000 r-xp 00000000 fd:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6",
      "Rss:                 900 kB",
      "7f0000200000-7f0000300000 rwxp 00000000 00:00 0 ",
      "Rss:                 500 kB",
    ].join("\n");
    expect(codeMappings(smaps, "/usr/bin/bun")).toEqual([
      { start: 0x55d0a1000000n, end: 0x55d0a5000000n, rss: 30000 * 1024, written: false },
      { start: 0x55d0a5000000n, end: 0x55d0a5100000n, rss: 100 * 1024, written: true },
    ]);
  });

  it("takes this process's code out of its resident size, and the code it runs comes back", () => {
    const before = codeResident("self");
    expect(before).toBeGreaterThan(4 << 20);
    const t = dropCodePages();
    expect(t).toBeDefined();
    expect(t!.residentBefore).toBeGreaterThan(0);
    expect(t!.advised).toBeGreaterThan(0);
    // Read right away: only the code between the advice and this read is back.
    expect(codeResident("self")).toBeLessThan(before / 2);
    // The program goes on running, through code it had not run for a while.
    expect(JSON.parse(JSON.stringify({ a: [1, 2.5, "x"] }))).toEqual({ a: [1, 2.5, "x"] });
    expect(new Bun.CryptoHasher("sha256").update("abc").digest("hex")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("the programs drop their start-up code once running", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-code-pages-"));
  const running: Running[] = [];
  afterAll(async () => {
    for (const p of running) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the collector, a few seconds after it is ready: its code's resident size falls, and it still answers", async () => {
    const p = Running.start("collector", ["--data-dir", join(dir, "collector"), "--http-port", "0", "--mqtt-port", "0", "--log-level", "debug"]);
    running.push(p);
    const url = `http://127.0.0.1:${portOf(await p.waitForLine(/HTTP listening/, 30_000))}`;
    await p.waitForLine(/collector ready/, 30_000);
    const atReady = codeResident(p.pid);
    const line = await p.waitForLine(/unused code pages dropped/, 20_000);
    expect(Number(/residentMB=(\d+)/.exec(line)?.[1])).toBeGreaterThan(0);
    expect(codeResident(p.pid)).toBeLessThan(atReady);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // A write and a read, through code the start did not all run.
    const headers = { "Svc-Tenant": "acme", "Content-Type": "application/json" };
    const write = await fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", headers, body: JSON.stringify([{ id: "load", data: [{ timestamp: 1_700_000_000_000, value: 0.25 }] }]) });
    expect(write.status).toBe(200);
    const read = await fetch(`${url}/svc/metrics/gauges/load/raw?start=1699999999000&end=1700000001000`, { headers });
    expect(await read.json()).toEqual([{ timestamp: 1_700_000_000_000, value: 0.25 }]);
  }, 60_000);

  it("the agent, offline, a few seconds after it started: the same, and its local write API still answers", async () => {
    const port = await freePort();
    const p = Running.start("agent", ["--tenant", "acme", "--data-dir", join(dir, "agent"), "--listen", `127.0.0.1:${port}`, "--broker", `mqtt://127.0.0.1:${await freePort()}`, "--no-inventory", "--log-level", "debug"]);
    running.push(p);
    await p.waitForLine(/agent started/, 30_000);
    const atStart = codeResident(p.pid);
    const line = await p.waitForLine(/unused code pages dropped/, 20_000);
    expect(Number(/residentMB=(\d+)/.exec(line)?.[1])).toBeGreaterThan(0);
    expect(codeResident(p.pid)).toBeLessThan(atStart);
    const write = await fetch(`http://127.0.0.1:${port}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ id: "load", data: [{ timestamp: Date.now(), value: 0.25 }] }]) });
    expect(write.status).toBe(200);
  }, 60_000);
});
