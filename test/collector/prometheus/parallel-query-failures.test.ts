/**
 * PromQL evaluation in a worker thread when things go wrong: a worker that throws, one that
 * dies, one that cannot start, one that hangs, a corrupt chunk only the worker decodes — each
 * query still answers exactly what one thread answers (or its error), never hangs; and closing
 * ends the worker, in process and for a real collector stopped by SIGTERM.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PromqlOffload } from "../../../collector/metrics/promql-offload.ts";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { bothWays, storeWith, type TestSeries } from "../../helpers/offload-store.ts";
import { portOf, Running } from "../../helpers/program.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../../helpers/remote-write.ts";

const T0 = 1_700_000_000_000;
const STEP = 15_000;
const END = T0 + 300 * STEP;

function fleet(n: number): TestSeries[] {
  return Array.from({ length: n }, (_, s) => ({
    name: "x",
    labels: { host: `h${s % 7}`, idx: String(s) },
    type: "counter" as const,
    ts: Array.from({ length: 300 }, (_, j) => T0 + j * STEP),
    vals: Array.from({ length: 300 }, (_, j) => j * ((s % 5) + 0.1) + Math.sin(s + j)),
  }));
}

const Q = "sum by (host) (rate(x[5m]))";
const helper = (name: string) => new URL(`../../helpers/${name}`, import.meta.url);

describe("a failing worker", () => {
  let st: Awaited<ReturnType<typeof storeWith>>;
  beforeAll(async () => {
    st = await storeWith(fleet(260));
  });
  afterAll(() => st.remove());

  test.each([
    ["throws on its message", "promql-worker-throws.ts"],
    ["exits at its message", "promql-worker-exits.ts"],
    ["cannot be loaded", "no-such-worker.ts"],
  ])("one that %s: the main thread evaluates its half, the same answer; the next query too", async (_, script) => {
    const off = new PromqlOffload({ script: helper(script), takeBack: false });
    try {
      for (let i = 0; i < 2; i++) {
        const [one, two] = await bothWays(st.store, off, Q, T0, END, 60_000);
        expect(two).toEqual(one);
        expect(one).not.toHaveProperty("error");
      }
      expect(off.slicesDone).toBe(0);
    } finally {
      await off.close();
    }
  });

  test("one that never answers is ended after its timeout: the main thread evaluates its half", async () => {
    const off = new PromqlOffload({ script: helper("promql-worker-hangs.ts"), takeBack: false, timeoutMs: 300 });
    try {
      const [one, two] = await bothWays(st.store, off, Q, T0, END, 60_000);
      expect(two).toEqual(one);
      expect(off.running).toBe(false);
    } finally {
      await off.close();
    }
  });

  test("close() ends the worker; later queries run on one thread", async () => {
    const off = new PromqlOffload({ takeBack: false });
    const [one, two] = await bothWays(st.store, off, Q, T0, END, 60_000);
    expect(two).toEqual(one);
    expect(off.running).toBe(true);
    expect(off.slicesDone).toBeGreaterThan(0);
    await off.close();
    expect(off.running).toBe(false);
    const done = off.slicesDone;
    const [, after] = await bothWays(st.store, off, Q, T0, END, 60_000);
    expect(after).toEqual(one);
    expect(off.slicesDone).toBe(done);
    expect(off.running).toBe(false);
  });
});

test("a corrupt chunk in the worker's half: the same corrupt-data error as on one thread", async () => {
  const st = await storeWith(fleet(260));
  try {
    await st.store.close();
    // Flip a byte in the middle of a block of series 258 (host h6: the worker's half).
    const db = new Database(join(st.dir, "metrics.db"));
    const row = db.query("SELECT c.cid, c.body FROM chunks c JOIN series s USING (sid) WHERE s.metric = ? ORDER BY c.cid LIMIT 1").get('x{host="h6",idx="258"}') as { cid: number; body: Uint8Array } | null;
    expect(row).not.toBeNull();
    const body = new Uint8Array(row!.body);
    body[body.length >> 1]! ^= 0x10;
    db.query("UPDATE chunks SET body = ? WHERE cid = ?").run(body, row!.cid);
    db.close();
    const store = await openSqliteMetricsStore({ dataDir: st.dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    const off = new PromqlOffload({ takeBack: false });
    try {
      const [one, two] = await bothWays(store, off, Q, T0, END, 60_000);
      expect(one).toEqual({ error: expect.stringMatching(/corrupt/) });
      expect(two).toEqual(one);
    } finally {
      await off.close();
      await store.close();
    }
  } finally {
    await st.remove();
  }
});

test("a real collector answers large queries (offered to its worker) and exits cleanly on SIGTERM", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "outpost-offload-proc-"));
  const collector = Running.start("collector", ["--data-dir", dir, "--http-port", "0", "--mqtt-port", "0", "--self-metrics-interval", "0"]);
  try {
    const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
    await collector.waitForLine(/collector ready/);
    const now = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
    const series = Array.from({ length: 240 }, (_, s) => ({
      labels: { __name__: "req_total", host: `h${s % 6}`, idx: String(s) },
      samples: Array.from({ length: 120 }, (_, j) => [now + j * 15_000, j * (s + 1)] as [number, number]),
    }));
    const w = await fetch(`${url}/prometheus/acme/api/v1/write`, { method: "POST", headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(series) });
    expect(w.status).toBeLessThan(300);
    const params = new URLSearchParams({ query: "sum by (host) (rate(req_total[5m]))", start: String(now / 1000 + 300), end: String(now / 1000 + 1785), step: "60" });
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${url}/prometheus/acme/api/v1/query_range?${params}`);
      expect(r.status).toBe(200);
      const b = (await r.json()) as { data: { result: { metric: { host: string }; values: [number, string][] }[] } };
      expect(b.data.result.map((x) => x.metric.host)).toEqual(["h0", "h1", "h2", "h3", "h4", "h5"]);
      // Every series grows by (s + 1) per 15 s: host h0 holds s = 0, 6, …, 234, so 40 series.
      const h0 = Array.from({ length: 40 }, (_, k) => (6 * k + 1) / 15).reduce((a, b) => a + b, 0);
      expect(Number(b.data.result[0]!.values[5]![1])).toBeCloseTo(h0, 9);
    }
    collector.signal("SIGTERM");
    const code = await Promise.race([collector.exited, Bun.sleep(15_000).then(() => "hung")]);
    expect(code).toBe(0);
    expect(collector.lines.filter((l) => /PromQL worker/.test(l))).toEqual([]);
  } finally {
    await collector.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
