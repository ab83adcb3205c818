/**
 * Backup and restore carry the rollup tiers: a collector's tiers (and the marks of what they
 * hold) are in metrics.db, so the restored collector answers long ranges from them at once,
 * with the same numbers, and computes nothing again. The real programs, as an operator runs them.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/metrics/model.ts";
import { waitFor } from "../helpers/ports.ts";
import { portOf, Running, run } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-backup-rollups-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 12 * DAY_MS;
const HEADERS = { "Svc-Tenant": "acme", "Content-Type": "application/json" };

async function start(dataDir: string): Promise<{ proc: Running; url: string }> {
  const proc = Running.start("collector", ["--data-dir", dataDir, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--self-metrics-interval", "0"]);
  const url = `http://127.0.0.1:${portOf(await proc.waitForLine(/HTTP listening/))}`;
  await proc.waitForLine(/collector ready/);
  return { proc, url };
}

const rolled = async (url: string) => Number(/^outpost_collector_rollup_chunks_total (\d+)/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);

async function dailyStats(url: string): Promise<{ header: string | null; body: unknown }> {
  const r = await fetch(`${url}/svc/metrics/gauges/temp/stats?start=${T0}&end=${T0 + 3 * DAY_MS}&bucketDuration=1d&percentiles=90`, { headers: HEADERS });
  return { header: r.headers.get("Outpost-Resolution"), body: await r.json() };
}

describe("backup and restore of the rollup tiers", () => {
  it("the restored collector answers from the tiers at once, with the same numbers, and rolls nothing up again", async () => {
    const source = join(dir, "source");
    const original = await start(source);
    let before: Awaited<ReturnType<typeof dailyStats>>;
    try {
      const points = Array.from({ length: 3 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: 20 + ((i * 7) % 13) / 10 }));
      for (let k = 0; k < points.length; k += 1500) {
        expect((await fetch(`${original.url}/svc/metrics/gauges/temp/raw`, { method: "POST", headers: HEADERS, body: JSON.stringify(points.slice(k, k + 1500)) })).status).toBe(200);
      }
      await waitFor("the points rolled up", async () => ((await rolled(original.url)) >= 4 ? true : undefined), 30_000, 200);
      before = await dailyStats(original.url);
      expect(before.header).toBe("1d");
      const b = await run("collector", ["backup", join(dir, "backup"), "--data-dir", source]);
      expect(b.code, b.stderr).toBe(0);
    } finally {
      await original.proc.stop("SIGTERM");
    }
    const target = join(dir, "restored");
    const r = await run("collector", ["restore", join(dir, "backup"), "--data-dir", target]);
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(target, "metrics.db"), { readonly: true });
    const steps = (db.query("SELECT DISTINCT step FROM rollups ORDER BY step").values() as [number][]).map((x) => x[0]);
    db.close();
    expect(steps).toEqual([300_000, 3_600_000, DAY_MS]);
    const restored = await start(target);
    try {
      expect(await dailyStats(restored.url)).toEqual(before!);
      await Bun.sleep(1500);
      expect(await rolled(restored.url)).toBe(0);
    } finally {
      await restored.proc.stop("SIGTERM");
    }
  });
});
