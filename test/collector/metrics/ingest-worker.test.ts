/**
 * Large gauge/counter JSON write bodies parsed by the worker thread (collector/metrics/
 * json-offload.ts): the same answers and the same stored points as the main thread's parse,
 * whatever the body; a worker that dies, hangs or is closed loses no request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PointsBus } from "../../../collector/events/points-bus.ts";
import { createMetricsApp } from "../../../collector/http/metrics/app.ts";
import { JSON_OFFLOAD_MIN_CHARS, JsonOffload } from "../../../collector/metrics/json-offload.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { OPEN_ACCESS } from "../../../src/http/access.ts";
import { errorResponse, mountService, type ServiceEnv } from "../../../src/http/service.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { anyPoint, validValue } from "../../helpers/point-arbitraries.ts";
import { startTestCollector, type TestCollector } from "../../helpers/collector.ts";

const IDS = ["m", "a.b", "cpu:0", "s1", "s2"];
const T0 = Date.UTC(2026, 0, 1);
type Kind = "gauge" | "counter";
const PATH: Record<Kind, string> = { gauge: "gauges", counter: "counters" };

const points = (k: Kind) =>
  fc.array(
    fc.record(
      {
        // Few distinct timestamps: repeats within a body and across data/dataPoints.
        timestamp: fc.integer({ min: 0, max: 40 }).map((i) => T0 + i * 1000),
        value: validValue[k] as fc.Arbitrary<number>,
        tags: fc.dictionary(fc.constantFrom("a", "b"), fc.string({ maxLength: 2 }), { maxKeys: 2 }),
      },
      { requiredKeys: ["timestamp", "value"] },
    ),
    { maxLength: 8 },
  );
const metric = (k: Kind) => fc.record({ id: fc.constantFrom(...IDS), data: points(k), dataPoints: points(k) }, { requiredKeys: ["id"] });
/** Bodies as text: mostly normalized, some the schemas convert or refuse, some not JSON. */
const bodyText = (k: Kind) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(metric(k), { minLength: 1, maxLength: 30 }).map((b) => JSON.stringify(b)) },
    { weight: 2, arbitrary: fc.array(fc.record({ id: fc.constantFrom(...IDS), data: fc.array(anyPoint, { maxLength: 3 }) }), { minLength: 1, maxLength: 3 }).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.constantFrom('[{"id":"m","data":[{"timestamp":1,"value":1}]', "[]", "{}", '[{"id":"m","data":[{"timestamp":1767225600000,"value":"2.5","tags":null}]}]') },
  );

async function readAll(col: TestCollector, tenant: string, k: Kind) {
  const out: Record<string, unknown> = {};
  for (const id of IDS) {
    const res = await col.req(`/svc/metrics/${PATH[k]}/${encodeURIComponent(id)}/raw?start=0&end=${T0 + 100_000}&order=asc`, { tenant });
    out[id] = res.status === 204 ? [] : await res.json();
  }
  return out;
}

describe("a collector parsing in the worker and one parsing on the main thread", () => {
  let worker: TestCollector;
  let main: TestCollector;
  beforeAll(async () => {
    [worker, main] = await Promise.all([startTestCollector({ "ingest-worker-min-body": 1 }), startTestCollector({ "ingest-worker-min-body": 0 })]);
  });
  afterAll(async () => {
    await Promise.all([worker?.close(), main?.close()]);
  });

  it("answer every body alike, byte for byte, and store the same points", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Kind>("gauge", "counter").chain((k) => fc.tuple(fc.constant(k), fc.array(bodyText(k), { minLength: 1, maxLength: 3 }))),
        async ([k, texts]) => {
          const tenant = `p${run++}`;
          for (const text of texts) {
            const send = (c: TestCollector) => c.req(`/svc/metrics/${PATH[k]}/raw`, { method: "POST", tenant, body: text, headers: { "Content-Type": "application/json" } });
            const [a, b] = await Promise.all([send(worker), send(main)]);
            expect([a.status, await a.text()]).toEqual([b.status, await b.text()]);
          }
          expect(await readAll(worker, tenant, k)).toEqual(await readAll(main, tenant, k));
        },
      ),
      { numRuns: 60 },
    );
    const parsed = (c: TestCollector) => c.req("/metrics").then(async (r) => Number(/^outpost_collector_ingest_worker_bodies_total (\d+)$/m.exec(await r.text())?.[1] ?? -1));
    expect(await parsed(worker)).toBeGreaterThan(30);
    expect(await parsed(main)).toBe(-1);
  });
});

describe("with --value-precision", () => {
  it("the worker's columns are rounded as the main thread's points are", async () => {
    const [worker, main] = await Promise.all([
      startTestCollector({ "ingest-worker-min-body": 1, "value-precision": 3 }),
      startTestCollector({ "ingest-worker-min-body": 0, "value-precision": 3 }),
    ]);
    try {
      const text = JSON.stringify(IDS.map((id, s) => ({ id, data: Array.from({ length: 5 }, (_, i) => ({ timestamp: T0 + i * 1000, value: Math.PI * 10 ** (s - i) * (i % 2 ? -1 : 1) })) })));
      for (const c of [worker, main]) expect((await c.req("/svc/metrics/gauges/raw", { method: "POST", tenant: "vp", body: text, headers: { "Content-Type": "application/json" } })).status).toBe(200);
      const a = await readAll(worker, "vp", "gauge");
      expect(a).toEqual(await readAll(main, "vp", "gauge"));
      expect((a.m as { value: number }[])[0]!.value).toBe(3.14);
    } finally {
      await Promise.all([worker.close(), main.close()]);
    }
  });
});

describe("the worker thread", () => {
  let dir: string;
  let store: SqliteMetricsStore;
  const warnings: string[] = [];
  const log = createLogger("warn", "test", (line) => void warnings.push(line));
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "outpost-json-worker-"));
    store = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const appWith = (jsonOffload: JsonOffload) => {
    const root = new Hono<ServiceEnv>();
    // As the collector without credentials configured: every tenant open.
    root.use("*", async (c, next) => {
      c.set("access", OPEN_ACCESS);
      await next();
    });
    mountService(root, ["/svc/metrics"], createMetricsApp({ store, bus: new PointsBus(), version: "test", defaultRetentionDays: 7, jsonOffload }));
    root.onError((err, c) => errorResponse(err, c));
    return root;
  };
  /** 400 series × 20 points: about 56 KB, over the default threshold. */
  const large = (from: number) => JSON.stringify(Array.from({ length: 400 }, (_, s) => ({ id: `w${s}`, data: Array.from({ length: 20 }, (_, i) => ({ timestamp: from + i, value: s + i / 10 })) })));
  const post = (app: ReturnType<typeof appWith>, tenant: string, text: string) =>
    app.request("http://localhost/svc/metrics/gauges/raw", { method: "POST", body: text, headers: { "Content-Type": "application/json", "Hawkular-Tenant": tenant } });
  const stored = async (tenant: string) => {
    let n = 0;
    for (let s = 0; s < 400; s++) n += (await store.readRaw(tenant, "gauge", `w${s}`, { start: 0, end: T0 * 2, order: "asc" })).ts.length;
    return n;
  };
  const helper = (name: string) => new URL(`../../helpers/${name}`, import.meta.url);

  it("parses a large body into columns that store every point; a small one stays on the main thread", async () => {
    const off = new JsonOffload({ log });
    try {
      const app = appWith(off);
      expect((await post(app, "big", large(T0))).status).toBe(200);
      expect(off.parsed).toBe(1);
      expect(await stored("big")).toBe(8000);
      const small = JSON.stringify([{ id: "w0", data: [{ timestamp: T0 + 500, value: 1 }] }]);
      expect((await post(app, "big", small)).status).toBe(200);
      expect(off.parsed).toBe(1);
      expect(await stored("big")).toBe(8001);
    } finally {
      await off.close();
    }
  });

  it("reuses its shared slots without one request's points reaching another's series or tenant", async () => {
    // Bodies in flight at once, from two tenants, with values that say whose they are.
    const off = new JsonOffload({ log, maxWaiting: 2 });
    const bus = new PointsBus();
    const seen: string[] = [];
    bus.subscribe((p) => {
      // A listener reading the points while they are published sees that request's own.
      for (const w of p.writes) for (const pt of w.points) if (Math.floor(pt.value as number) % 1000 !== Number(p.tenant.slice(1)) % 1000) seen.push(`${p.tenant}/${w.id}`);
    });
    const root = new Hono<ServiceEnv>();
    root.use("*", async (c, next) => {
      c.set("access", OPEN_ACCESS);
      await next();
    });
    // A store slow to commit (as a slow disk makes it): the next bodies are scanned meanwhile.
    const slow = new Proxy(store, {
      get: (target, key) =>
        key === "writeColumns"
          ? async (...a: Parameters<SqliteMetricsStore["writeColumns"]>) => {
              await Bun.sleep(15);
              return target.writeColumns(...a);
            }
          : Reflect.get(target, key, target),
    });
    mountService(root, ["/svc/metrics"], createMetricsApp({ store: slow, bus, version: "test", defaultRetentionDays: 7, jsonOffload: off }));
    root.onError((err, c) => errorResponse(err, c));
    const body = (tenant: number, round: number) =>
      JSON.stringify(Array.from({ length: 400 }, (_, s) => ({ id: `w${s}`, data: Array.from({ length: 20 }, (_, i) => ({ timestamp: T0 + round * 100 + i, value: tenant + 1000 * (s + i) + 0.25 })) })));
    try {
      // Rounds of two requests at once, one per tenant, the second round starting while the
      // first is being committed: the pool's 4 slots each serve several requests.
      const rounds: Promise<Response[]>[] = [];
      for (let round = 0; round < 8; round++) {
        // At most two rounds (the pool's 4 slots) in flight: on a loaded machine the first rounds'
        // slowly committed requests held every slot, and the rest were parsed on this thread.
        if (round >= 2) await rounds[round - 2];
        rounds.push(Promise.all([1, 2].map((t) => post(root as ReturnType<typeof appWith>, `t${t}`, body(t, round)))));
        // Less than a commit's time (15 ms), more than the worker needs for two bodies on a busy machine.
        await Bun.sleep(10);
      }
      for (const answers of await Promise.all(rounds)) for (const r of answers) expect(r.status).toBe(200);
      // More requests than the pool's 4 slots went through the worker: slots were reused.
      expect(off.parsed).toBeGreaterThan(4);
      expect(seen).toEqual([]);
      for (const t of [1, 2]) {
        for (const s of [0, 7, 399]) {
          const got = await store.readRaw(`t${t}`, "gauge", `w${s}`, { start: 0, end: T0 * 2, order: "asc" });
          expect(got.ts.length).toBe(160);
          for (let k = 0; k < got.ts.length; k++) expect(got.values[k]).toBe(t + 1000 * (s + ((got.ts[k]! - T0) % 100)) + 0.25);
        }
      }
    } finally {
      await off.close();
    }
  });

  it("turns ids into codes and back through a bounded dictionary, and starts it again when full", async () => {
    // Room for 500 ids: bodies of 400 ids, a third of them new each time, fill it again and again.
    const off = new JsonOffload({ log, maxIds: 500, minChars: 1 });
    const tenant = "dict";
    const body = (round: number) =>
      JSON.stringify(Array.from({ length: 400 }, (_, s) => ({ id: `d${s + round * 130}`, data: [{ timestamp: T0 + round, value: s + round * 130 }] })));
    try {
      const app = appWith(off);
      for (let round = 0; round < 8; round++) expect((await post(app, tenant, body(round))).status).toBe(200);
      expect(off.parsed).toBe(8);
      // Every id read back with its own value, at the rounds that wrote it.
      for (const n of [0, 129, 130, 399, 500, 909, 1309]) {
        const got = await store.readRaw(tenant, "gauge", `d${n}`, { start: 0, end: T0 * 2, order: "asc" });
        const rounds = Array.from({ length: 8 }, (_, r) => r).filter((r) => n - r * 130 >= 0 && n - r * 130 < 400);
        expect(got.ts).toEqual(rounds.map((r) => T0 + r));
        expect(got.values).toEqual(rounds.map(() => n));
      }
    } finally {
      await off.close();
    }
  });

  it.each([
    ["exits at its message (killed mid-request)", "promql-worker-exits.ts", {}],
    ["throws on its message", "promql-worker-throws.ts", {}],
    ["never answers", "promql-worker-hangs.ts", { timeoutMs: 300 }],
    ["cannot be loaded", "no-such-worker.ts", {}],
  ])("one that %s: the request is parsed on the main thread, stored, answered 200; warned once", async (_, script, o) => {
    warnings.length = 0;
    const off = new JsonOffload({ log, script: helper(script), retryMs: 0, ...o });
    const tenant = `fail-${script}`;
    try {
      const app = appWith(off);
      for (let i = 0; i < 2; i++) expect((await post(app, tenant, large(T0 + i * 100))).status).toBe(200);
      expect(await stored(tenant)).toBe(16000);
      expect(off.parsed).toBe(0);
      expect(off.lost).toBeGreaterThanOrEqual(1);
      expect(warnings.filter((l) => l.includes("JSON ingest worker ended"))).toHaveLength(1);
    } finally {
      await off.close();
    }
  });

  it("close() while it holds a body: that request completes on the main thread; the thread is ended", async () => {
    const off = new JsonOffload({ log, script: helper("promql-worker-hangs.ts") });
    const app = appWith(off);
    const pending = post(app, "closing", large(T0));
    await Bun.sleep(50);
    expect(off.running).toBe(true);
    await off.close();
    expect(off.running).toBe(false);
    expect((await pending).status).toBe(200);
    expect(await stored("closing")).toBe(8000);
    // Closed: later bodies are parsed on the main thread, no new worker.
    expect((await post(app, "closing", large(T0 + 100))).status).toBe(200);
    expect(off.running).toBe(false);
  });
});

describe("a collector that has used its worker", () => {
  it("stops cleanly, and its points are there after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-json-worker-stop-"));
    try {
      const text = JSON.stringify(Array.from({ length: 600 }, (_, s) => ({ id: `c${s}`, data: [{ timestamp: T0, value: s }] })));
      expect(text.length).toBeGreaterThan(JSON_OFFLOAD_MIN_CHARS);
      const col = await startTestCollector({ "ingest-worker-min-body": JSON_OFFLOAD_MIN_CHARS }, dir);
      expect((await col.req("/svc/metrics/gauges/raw", { method: "POST", body: text, headers: { "Content-Type": "application/json" } })).status).toBe(200);
      expect(await (await col.req("/metrics")).text()).toMatch(/^outpost_collector_ingest_worker_bodies_total 1$/m);
      await col.close();
      const again = await startTestCollector({}, dir);
      try {
        const res = await again.req(`/svc/metrics/gauges/c599/raw?start=0&end=${T0 + 1}`);
        expect(await res.json()).toEqual([{ timestamp: T0, value: 599 }]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
