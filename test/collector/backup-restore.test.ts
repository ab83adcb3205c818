/**
 * `backup` while the collector runs and ingests, then `restore` into another data folder: the
 * restored collector holds a consistent prefix of what was written (whole batches, no gap),
 * at least everything acknowledged before the backup started. The real programs, as an
 * operator runs them.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLLECTOR_DATABASES } from "../../collector/store/databases.ts";
import { latestVersion } from "../../src/sqlite/migrations.ts";
import { portOf, Running, run } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.now() - 3_600_000;
const BATCH = 500;
const TENANT = { "Svc-Tenant": "acme", "Content-Type": "application/json" };

async function startCollector(dataDir: string): Promise<{ proc: Running; url: string }> {
  const proc = Running.start("collector", ["--data-dir", dataDir, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--self-metrics-interval", "0"]);
  const url = `http://127.0.0.1:${portOf(await proc.waitForLine(/HTTP listening/))}`;
  await proc.waitForLine(/collector ready/);
  return { proc, url };
}

/** Batch i holds the points T0 + i·BATCH … T0 + (i+1)·BATCH − 1, each valued its offset. */
function batch(i: number): string {
  return JSON.stringify([{ id: "seq", dataPoints: Array.from({ length: BATCH }, (_, k) => ({ timestamp: T0 + i * BATCH + k, value: i * BATCH + k })) }]);
}

async function readSeq(url: string): Promise<{ timestamp: number; value: number }[]> {
  const r = await fetch(`${url}/svc/metrics/gauges/seq/raw?start=${T0}&end=${T0 + 10_000_000}&order=ASC&limit=10000000`, { headers: TENANT });
  return r.status === 204 ? [] : ((await r.json()) as { timestamp: number; value: number }[]);
}

describe("backup while ingest continues, then restore", () => {
  const source = join(dir, "source");
  const backup = join(dir, "backup");
  let original: { proc: Running; url: string };
  let ackedBefore = 0;
  let sent = 0;

  beforeAll(async () => {
    original = await startCollector(source);
    const h = { method: "POST", headers: TENANT };
    expect((await fetch(`${original.url}/svc/alerts/triggers/trigger`, { ...h, body: JSON.stringify({ trigger: { id: "kept", name: "kept", enabled: true }, conditions: [{ type: "THRESHOLD", dataId: "seq", operator: "LT", threshold: -1 }] }) })).status).toBe(200);
    expect((await fetch(`${original.url}/svc/inventory/entity/feed`, { ...h, body: JSON.stringify({ id: "edge-9" }) })).status).toBe(201);

    let acked = 0;
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        sent = i + 1;
        const r = await fetch(`${original.url}/svc/metrics/gauges/raw`, { ...h, body: batch(i) });
        expect(r.status).toBe(200);
        acked = i + 1;
      }
    })();
    while (acked < 20) await Bun.sleep(20);
    ackedBefore = acked;
    const b = await run("collector", ["backup", backup, "--data-dir", source]);
    expect(b.code, b.stderr).toBe(0);
    const during = acked - ackedBefore;
    writing = false;
    await writer;
    // The backup ran while batches kept being committed.
    expect(during).toBeGreaterThan(0);
  });
  afterAll(() => original.proc.stop("SIGTERM"));

  it("writes a manifest of checked copies with their schema versions and checksums", () => {
    const m = JSON.parse(readFileSync(join(backup, "manifest.json"), "utf8"));
    expect(m.databases.map((d: { file: string }) => d.file).sort()).toEqual(["alerts.db", "fleet.db", "forecast.db", "inventory.db", "metrics.db", "releases.db"]);
    for (const d of m.databases) {
      const schema = COLLECTOR_DATABASES.find((s) => s.name === d.file)!;
      expect(d).toMatchObject({ schemaVersion: latestVersion(schema), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    expect(readdirSync(backup).filter((f) => f.endsWith(".partial"))).toEqual([]);
  });

  it("restores into a new data folder: a consistent prefix of whole batches, everything acknowledged before the backup", async () => {
    const target = join(dir, "restored");
    const r = await run("collector", ["restore", backup, "--data-dir", target]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/restore complete/);
    const restored = await startCollector(target);
    try {
      const points = await readSeq(restored.url);
      expect(points.length % BATCH).toBe(0);
      expect(points.length / BATCH).toBeGreaterThanOrEqual(ackedBefore);
      expect(points.length / BATCH).toBeLessThanOrEqual(sent);
      points.forEach((p, i) => {
        if (p.timestamp !== T0 + i || p.value !== i) throw new Error(`point ${i} is ${JSON.stringify(p)}: not a prefix`);
      });
      const t = await fetch(`${restored.url}/svc/alerts/triggers/kept`, { headers: TENANT });
      expect(t.status).toBe(200);
      expect((await fetch(`${restored.url}/svc/inventory/entity/f;edge-9`, { headers: TENANT })).status).toBe(200);
    } finally {
      await restored.proc.stop("SIGTERM");
    }
  });

  it("the original collector went on undisturbed and has every batch", async () => {
    expect(original.proc.running).toBe(true);
    expect((await readSeq(original.url)).length).toBe(sent * BATCH);
  });

  it("refuses to restore over a running collector, and to back up into a folder that is not empty", async () => {
    const r = await run("collector", ["restore", backup, "--data-dir", source]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(`error: --data-dir ${source} is in use by another collector process (stop it first, or choose another --data-dir)`);
    expect(existsSync(join(source, "metrics.db"))).toBe(true);
    const b = await run("collector", ["backup", backup, "--data-dir", source]);
    expect(b.code).toBe(2);
    expect(b.stderr.trim()).toBe(`error: ${backup} is not empty: back up into a new folder`);
  });
});

describe("restore refuses a damaged backup and leaves the data folder as it is", () => {
  it("a copy changed since the backup", async () => {
    const source = join(dir, "small");
    const c = await startCollector(source);
    await fetch(`${c.url}/svc/metrics/gauges/raw`, { method: "POST", headers: TENANT, body: batch(0) });
    const copy = join(dir, "small-backup");
    expect((await run("collector", ["backup", copy, "--data-dir", source])).code).toBe(0);
    await c.proc.stop("SIGTERM");
    appendFileSync(join(copy, "forecast.db"), "tampered");
    const r = await run("collector", ["restore", copy, "--data-dir", source]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(`error: ${join(copy, "forecast.db")}: its checksum differs from the manifest's (changed or damaged since the backup)`);
    expect(readdirSync(source).some((f) => f.startsWith("before-restore"))).toBe(false);

    writeFileSync(join(copy, "metrics.db"), "not a database at all, just text long enough to be read as a header........................................");
    const bad = await run("collector", ["restore", copy, "--data-dir", source]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/metrics\.db: (not a readable SQLite database|cannot be opened)/);

    mkdirSync(join(dir, "empty"));
    const none = await run("collector", ["restore", join(dir, "empty"), "--data-dir", source]);
    expect(none.stderr.trim()).toBe(`error: ${join(dir, "empty")} has no manifest.json: not a finished backup (made by the backup command)`);
  });
});

describe("a backup holds the points acknowledged but not yet in chunks", () => {
  it("copies the ingest log, and restore puts it back: the restored collector replays it", async () => {
    const source = join(dir, "unflushed");
    const c = await startCollector(source);
    // Three batches of 500: below a chunk's size and an hour's age, so only in the ingest log.
    for (let i = 0; i < 3; i++) expect((await fetch(`${c.url}/svc/metrics/gauges/raw`, { method: "POST", headers: TENANT, body: batch(i) })).status).toBe(200);
    const copy = join(dir, "unflushed-backup");
    expect((await run("collector", ["backup", copy, "--data-dir", source])).code).toBe(0);
    await c.proc.stop("SIGTERM");
    const manifest = JSON.parse(readFileSync(join(copy, "manifest.json"), "utf8")) as { ingestLog: { file: string }[] };
    expect(manifest.ingestLog.length).toBeGreaterThan(0);
    // A damaged log file is refused like a damaged database.
    const first = join(copy, manifest.ingestLog[0]!.file);
    const bytes = readFileSync(first);
    appendFileSync(first, "x");
    const target = join(dir, "unflushed-restored");
    const refused = await run("collector", ["restore", copy, "--data-dir", target]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n").at(-1)).toBe(`error: ${first}: its checksum differs from the manifest's (changed or damaged since the backup)`);
    writeFileSync(first, bytes);
    expect((await run("collector", ["restore", copy, "--data-dir", target])).code).toBe(0);
    const restored = await startCollector(target);
    try {
      const points = await readSeq(restored.url);
      expect(points).toHaveLength(3 * BATCH);
      expect(points.every((p, i) => p.timestamp === T0 + i && p.value === i)).toBe(true);
    } finally {
      await restored.proc.stop("SIGTERM");
    }
  });
});
