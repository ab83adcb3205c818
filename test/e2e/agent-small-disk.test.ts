import { statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";
import { scrape, System } from "./harness.ts";

/**
 * The agent's data folder on a filesystem of a few MiB that this test mounts (root is needed,
 * as for test/e2e/disk-full.test.ts), filled by the agent's own buffer while the collector is
 * away: the write API answers 507 once the disk is full. When the collector returns and
 * acknowledges the backlog, the agent must delete it on the full disk and accept writes again
 * by itself, every time: with the default 8 MB reserve, which does not fit on the small ones,
 * after the reserve was spent and the disk filled a second time, with no room for a reserve
 * at all, and with the reserve turned off. Every point accepted reaches the collector.
 */
let sys: System | undefined;
let disk: SmallDisk | undefined;
afterEach(async () => {
  await sys?.stop();
  sys = undefined;
  disk?.dispose();
  disk = undefined;
});

const PER_REQUEST = 5000;
const HOUR = 3_600_000;

async function write(url: string, metric: string, from: number, base: number, n = PER_REQUEST): Promise<Response> {
  // Random values: the buffer cannot shrink them much, so the disk fills in a few seconds.
  const points = Array.from({ length: n }, (_, k) => ({ timestamp: base + from + k, value: Math.random() }));
  return fetch(`${url}/svc/metrics/gauges/${metric}/raw`, { method: "POST", body: JSON.stringify(points), headers: { "Content-Type": "application/json", "Svc-Tenant": "e2e" } });
}

/** Writes until the agent answers 507; returns the points it accepted. */
async function fillBuffer(url: string, metric: string, base: number): Promise<number> {
  for (let i = 0; i < 10_000; i++) {
    const r = await write(url, metric, i * PER_REQUEST, base);
    const text = await r.text();
    if (r.status === 507) {
      expect(text).toMatch(/Storage is full/);
      return i * PER_REQUEST;
    }
    expect(r.status, text).toBe(200);
  }
  throw new Error("the disk never filled");
}

/** Points of one gauge stored at the collector. */
async function storedPoints(collectorUrl: string, metric: string, base: number): Promise<number> {
  const r = await fetch(`${collectorUrl}/svc/metrics/gauges/${metric}/stats?start=${base}&end=${base + 100 * HOUR}&buckets=1`, { headers: { "Svc-Tenant": "e2e" } });
  if (r.status === 204) return 0;
  const [bucket] = (await r.json()) as { samples?: number }[];
  return bucket?.samples ?? 0;
}

interface Case {
  mib: number;
  rounds: number;
  agentArgs?: string[];
  /** Bytes left free by a filler file before the agent starts (no room for its reserve). */
  leaveFree?: number;
  what: string;
}

const cases: Case[] = [
  { mib: 4, rounds: 1, what: "4 MiB: the default 8 MB reserve does not fit" },
  { mib: 8, rounds: 1, what: "8 MiB: the default 8 MB reserve does not fit" },
  { mib: 16, rounds: 1, what: "16 MiB" },
  { mib: 32, rounds: 2, what: "32 MiB, filled twice: the reserve spent in the first round" },
  { mib: 8, rounds: 2, leaveFree: 1900 * 1024, what: "8 MiB with 1.9 MiB free at start: no room for its 1 MiB reserve" },
  { mib: 8, rounds: 2, agentArgs: ["--disk-reserve", "0"], what: "8 MiB with the reserve turned off" },
];

describe("the agent on a small disk recovers by itself once its backlog is acknowledged", () => {
  for (const c of cases) {
    it(c.what, async () => {
      disk = new SmallDisk(c.mib);
      if (c.leaveFree !== undefined) {
        const fs = statfsSync(disk.dir);
        writeFileSync(join(disk.dir, "other-program"), new Uint8Array(fs.bavail * fs.bsize - c.leaveFree));
      }
      sys = new System({ broker: "embedded", tenant: "e2e", feed: `small-${c.mib}`, agentDataDir: join(disk.dir, "agent"), agentArgs: c.agentArgs });
      await sys.start();
      const s = sys;
      const base = Date.now() - 10 * HOUR;
      for (let round = 0; round < c.rounds; round++) {
        await s.collector.kill("SIGKILL");
        const accepted = await fillBuffer(s.agentUrl, `fill.${round}`, base);
        expect(accepted).toBeGreaterThan(0);
        expect(await scrape(s.agentUrl, "outpost_agent_storage_full")).toBe(1);
        await s.startCollector();
        const back = performance.now();
        // The defect: the backlog was acknowledged, but the buffer never shrank and writes stayed refused.
        await waitFor("the acknowledged backlog deleted", async () => ((await scrape(s.agentUrl, "outpost_agent_buffer_points")) < 1000 ? true : undefined), 60_000, 200);
        await waitFor(
          "a write accepted again",
          async () => {
            const r = await write(s.agentUrl, `after.${round}`, 0, base, 100);
            await r.arrayBuffer();
            return r.status === 200 ? true : undefined;
          },
          10_000,
          200,
        );
        const seconds = (performance.now() - back) / 1000;
        await waitFor("every accepted point at the collector", async () => ((await storedPoints(s.collectorUrl, `fill.${round}`, base)) === accepted ? true : undefined), 30_000, 500);
        process.stdout.write(`agent on ${c.mib} MiB, round ${round + 1}: ${accepted} points buffered until 507; deleted and writes accepted ${seconds.toFixed(1)} s after the collector returned\n`);
      }
      expect(s.agent.running).toBe(true);
    }, 240_000);
  }
});
