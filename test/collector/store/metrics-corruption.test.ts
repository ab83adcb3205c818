/**
 * A compressed chunk damaged on disk (a byte flipped in the real metrics.db file) is detected
 * by its checksum: reads touching it fail with a clear 503 and one log line naming the metric,
 * never with wrong points; other ranges and metrics read on.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { CorruptDataError } from "../../../src/sqlite/corrupt-data.ts";
import { portOf, Running } from "../../helpers/program.ts";

const DAY_A = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const DAY_B = DAY_A + DAY_MS;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const points = (t0: number, n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => ({ timestamp: t0 + i * 10_000, value: f(i) }));

function recordingLogger(lines: string[]): Logger {
  const log: Logger = {
    level: "info",
    debug() {},
    info() {},
    warn(msg, fields) {
      lines.push(`${msg} ${JSON.stringify(fields ?? {})}`);
    },
    error(msg, fields) {
      lines.push(`${msg} ${JSON.stringify(fields ?? {})}`);
    },
    child: () => log,
    setLevel() {},
  };
  return log;
}

/**
 * A data folder whose metrics.db holds gauges cpu (one chunk on day A, one on day B) and mem
 * of tenant acme, all flushed and checkpointed; then one byte of cpu's day-A block is flipped
 * in the file itself.
 */
async function corruptedDataDir(): Promise<string> {
  const d = mkdtempSync(join(tmpdir(), "outpost-corrupt-"));
  dirs.push(d);
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, sealOnClose: true });
  await s.write("acme", [
    { type: "gauge", id: "cpu", points: [...points(DAY_A, 200, (i) => Math.sin(i) * 50), ...points(DAY_B, 200, (i) => i / 4)] },
    { type: "gauge", id: "mem", points: points(DAY_A, 200, (i) => 1000 + i) },
  ]);
  await s.close(); // seals every head (sealOnClose) and checkpoints the WAL into the file
  const file = join(d, "metrics.db");
  const db = new Database(file, { readonly: true });
  const { body } = db.query("SELECT c.body FROM chunks c JOIN series s USING (sid) WHERE s.metric = 'cpu' AND c.start_ts = ?").get(DAY_A) as { body: Uint8Array };
  db.close();
  const bytes = readFileSync(file);
  const at = bytes.indexOf(Buffer.from(body));
  expect(at, "the block lies in the file as stored").toBeGreaterThan(0);
  expect(bytes.indexOf(Buffer.from(body), at + 1)).toBe(-1);
  bytes[at + Math.floor(body.length / 2)]! ^= 0x10;
  writeFileSync(file, bytes);
  return d;
}

describe("a corrupt compressed chunk", () => {
  it("fails the reads that touch it with CorruptDataError and one log line naming the metric; the rest reads on", async () => {
    const d = await corruptedDataDir();
    const lines: string[] = [];
    const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, log: recordingLogger(lines) });
    try {
      const dayA = { start: DAY_A, end: DAY_A + DAY_MS, order: "asc" as const };
      for (let k = 0; k < 3; k++) {
        const e = await s.readRaw("acme", "gauge", "cpu", dayA).catch((err: unknown) => err);
        expect(e).toBeInstanceOf(CorruptDataError);
        expect((e as Error).message).toMatch(/^Stored data of gauge metric 'cpu' is corrupt \(chunk \d+: corrupt point block: checksum mismatch/);
      }
      await expect(s.readSeries("acme", "gauge", "cpu", 0, Number.MAX_SAFE_INTEGER)).rejects.toBeInstanceOf(CorruptDataError);
      // Logged once for the chunk, however often it is read.
      const logged = lines.filter((l) => l.startsWith("corrupt chunk in metrics.db"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/"tenant":"acme","type":"gauge","metric":"cpu"/);
      // Day B of the same metric and the other metric are intact.
      const b = await s.readRaw("acme", "gauge", "cpu", { start: DAY_B, end: DAY_B + DAY_MS, order: "asc" });
      expect(b.values).toEqual(points(DAY_B, 200, (i) => i / 4).map((p) => p.value));
      expect((await s.readRaw("acme", "gauge", "mem", dayA)).values).toHaveLength(200);
    } finally {
      await s.close();
    }
  });

  it("is answered 503 with an errorMsg over HTTP (REST and Prometheus API), logged with the metric's name", async () => {
    const d = await corruptedDataDir();
    const collector = Running.start("collector", ["--data-dir", d, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--self-metrics-interval", "0"]);
    try {
      const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
      await collector.waitForLine(/collector ready/);
      const get = (path: string) => fetch(url + path, { headers: { "Svc-Tenant": "acme" } });
      for (const path of [`/svc/metrics/gauges/cpu/raw?start=${DAY_A}&end=${DAY_B}`, `/svc/metrics/gauges/cpu/stats?start=${DAY_A}&end=${DAY_B}&buckets=60`]) {
        const r = await get(path);
        expect(r.status, path).toBe(503);
        expect(((await r.json()) as { errorMsg: string }).errorMsg).toMatch(/^Stored data of gauge metric 'cpu' is corrupt/);
      }
      const q = encodeURIComponent("cpu");
      const prom = await get(`/api/v1/query_range?query=${q}&start=${DAY_A / 1000}&end=${(DAY_A + 3_600_000) / 1000}&step=60`);
      expect(prom.status).toBe(503);
      expect(await prom.json()).toMatchObject({ status: "error", errorType: "unavailable", errorMsg: expect.stringMatching(/metric 'cpu' is corrupt/) });
      // The other day of cpu, and mem, are served.
      const ok = await get(`/svc/metrics/gauges/cpu/raw?start=${DAY_B}&end=${DAY_B + DAY_MS}`);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toHaveLength(200);
      expect((await get(`/svc/metrics/gauges/mem/raw?start=${DAY_A}&end=${DAY_B}`)).status).toBe(200);
      await collector.waitForLine(/corrupt chunk in metrics\.db.*metric=cpu/);
    } finally {
      await collector.stop("SIGTERM");
    }
  });
});
