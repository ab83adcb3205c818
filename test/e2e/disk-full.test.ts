import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";
import { expectExactlyOnce, pushAll, readRaw, scrape, System } from "./harness.ts";

/**
 * Full disks with real processes: the collector's or the agent's data folder lies on a small
 * tmpfs this test mounts (root is needed, as on the project's machines and CI) and fills with
 * a filler file until not one byte is left, then frees. Every SQLite write that needs room
 * then fails with SQLITE_FULL, exactly as on a full disk in production. Both scenarios end with
 * every acknowledged point read back exactly once, and no process restarted.
 */
let sys: System | undefined;
let disk: SmallDisk | undefined;
afterEach(async () => {
  await sys?.stop();
  sys = undefined;
  disk?.dispose();
  disk = undefined;
});

function logOf(s: System, name: "collector" | "agent"): string {
  return readdirSync(s.dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith(".log"))
    .map((f) => readFileSync(join(s.dir, f), "utf8"))
    .join("\n");
}

/**
 * A write may still fit in pages SQLite already holds (a reused WAL, free pages), or in the
 * space the metrics log wrote ahead, so keep writing, to a metric outside the checked ones,
 * until one needs new space: 507 it must be.
 */
async function writeUntilRefused(url: string, points: (probe: number) => unknown[]): Promise<Response> {
  for (let probe = 0; probe < 100; probe++) {
    const w = await post(url, points(probe));
    if (w.status !== 200) {
      expect(w.status).toBe(507);
      return w;
    }
    await w.arrayBuffer();
  }
  throw new Error("100 writes on a full disk were all accepted");
}

const post = (url: string, points: unknown[]) =>
  fetch(url, { method: "POST", body: JSON.stringify(points), headers: { "Content-Type": "application/json", "Svc-Tenant": "e2e" } });

describe("full disks, with real processes", () => {
  it("collector disk full during ingest and back: writes 507, no acks, reads go on, logged once, resumes alone", async () => {
    disk = new SmallDisk(64);
    // A long ack timeout: without the collector's resend request, refused batches would wait 30–120 s.
    sys = new System({ broker: "embedded", tenant: "e2e", feed: "edge-collector-full", collectorDataDir: join(disk.dir, "collector"), agentArgs: ["--ack-timeout", "30s"] });
    await sys.start();
    const s = sys;
    const d = disk;
    const base = Date.now() - 60_000;
    const started = performance.now();
    await pushAll(s.agentUrl, base, 50, async (i) => {
      if (i === 30) {
        const direct = `${s.collectorUrl}/svc/metrics/gauges/direct/raw`;
        // The series exists before: its writes go to the metrics log alone, as the agent's do.
        expect((await post(direct, [{ timestamp: base, value: 1 }])).status).toBe(200);
        d.fill();
        // A write over HTTP is refused with 507 and says why, once the log's space written ahead
        // is used up too (in writes ever smaller, down to one point: then no batch fits).
        let w: Response | undefined;
        let at = base;
        for (const size of [20_000, 2_000, 200, 20, 1]) w = await writeUntilRefused(direct, () => Array.from({ length: size }, () => ({ timestamp: ++at, value: 1 })));
        expect(((await w!.json()) as { errorMsg: string }).errorMsg).toMatch(/Storage is full/);
        await waitFor("the collector to report its disk full", async () => ((await scrape(s.collectorUrl, "outpost_collector_storage_full")) === 1 ? true : undefined), 30_000, 200);
        // Reads go on.
        expect((await readRaw(s.collectorUrl, "e2e", 0, base)).length).toBeGreaterThan(0);
      }
      if (i === 60) {
        // Batches the collector could not store were not acked: the agent kept them.
        await waitFor("a batch refused by the full disk", async () => ((await scrape(s.collectorUrl, "outpost_collector_store_failures_total")) > 0 ? true : undefined), 30_000, 200);
        expect(await scrape(s.agentUrl, "outpost_agent_buffer_points")).toBeGreaterThan(0);
        d.free();
        // Space is back: the collector asks the agent for what it refused, which arrives within seconds.
        await waitFor("the refused batches resent and acknowledged", async () => ((await scrape(s.agentUrl, "outpost_agent_buffer_points")) < 1000 ? true : undefined), 15_000, 200);
      }
    });
    await expectExactlyOnce(s, base, 120_000);
    await waitFor("the condition to clear", async () => ((await scrape(s.collectorUrl, "outpost_collector_storage_full")) === 0 ? true : undefined), 10_000, 200);
    const log = logOf(s, "collector");
    expect(log.match(/storage is full/g)?.length, log.slice(-3000)).toBe(1);
    expect(log.match(/storage takes writes again/g)?.length).toBe(1);
    expect(log).toMatch(/asked agents to resend batches refused while storage was failing/);
    expect(s.collector.running).toBe(true);
    expect(readdirSync(s.dir).filter((f) => f.startsWith("collector-"))).toHaveLength(1);
    process.stdout.write(`e2e collector disk full: 100000 points delivered exactly once in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }, 300_000);

  it("agent disk full while the collector is down and after it returns: acknowledged points are deleted on the full disk, then it recovers alone", async () => {
    disk = new SmallDisk(64);
    sys = new System({ broker: "embedded", tenant: "e2e", feed: "edge-agent-full", agentDataDir: join(disk.dir, "agent"), agentArgs: ["--disk-reserve", "4MB"] });
    await sys.start();
    const s = sys;
    const d = disk;
    const base = Date.now() - 60_000;
    const started = performance.now();
    await pushAll(s.agentUrl, base, 20, async (i) => {
      if (i === 30) await s.collector.kill("SIGKILL");
      if (i === 70) {
        // 40 requests (40,000 points) wait in the agent's buffer; now its disk fills up.
        d.fill();
        const w = await writeUntilRefused(`${s.agentUrl}/svc/metrics/gauges/disk-probe/raw`, (probe) =>
          Array.from({ length: 5000 }, (_, k) => ({ timestamp: base + probe * 5000 + k, value: k })),
        );
        expect(((await w.json()) as { errorMsg: string }).errorMsg).toMatch(/Storage is full/);
        expect(await scrape(s.agentUrl, "outpost_agent_storage_full")).toBe(1);
        // The collector returns: the agent sends its backlog and, still on the full disk,
        // deletes what the collector acknowledged (the defect: it could not, and stayed stuck).
        await s.startCollector();
        await waitFor(
          "the backlog acknowledged and deleted on the full disk",
          async () => ((await scrape(s.agentUrl, "outpost_agent_buffer_points")) < 1000 ? true : undefined),
          60_000,
          250,
        );
        expect(await scrape(s.agentUrl, "outpost_agent_disk_reserve_held")).toBe(0);
        d.free();
        await waitFor("the agent to recover", async () => ((await scrape(s.agentUrl, "outpost_agent_storage_full")) === 0 ? true : undefined), 15_000, 200);
        expect(await scrape(s.agentUrl, "outpost_agent_disk_reserve_held")).toBe(1);
      }
    });
    await expectExactlyOnce(s, base, 120_000);
    const log = logOf(s, "agent");
    expect(log.match(/storage is full/g)?.length, log.slice(-3000)).toBe(1);
    expect(log.match(/released the disk space reserve/g)?.length).toBe(1);
    expect(log.match(/storage takes writes again/g)?.length).toBe(1);
    expect(readdirSync(s.dir).filter((f) => f.startsWith("agent-"))).toHaveLength(1);
    process.stdout.write(`e2e agent disk full: 100000 points delivered exactly once in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }, 300_000);
});
