/**
 * Remote-write bodies decoded in the worker thread (collector/metrics/remote-write-offload.ts,
 * remote-write-worker.ts), against the general path: whatever the worker's columns are, the
 * store is asked for what the general path asks; a body the worker does not take, and every body
 * of a worker that fails, dies or hangs, is left to the main thread; the dictionary of label bytes
 * starts again on both sides past its bound; a collector stores through the worker.
 */
import fc from "fast-check";
import { compressSync } from "snappy";
import { describe, expect, it } from "vitest";
import { RemoteWriteColumns, writeRemoteColumns } from "../../../collector/metrics/foreign-writes.ts";
import { MIN_IN_FLIGHT, RemoteWriteOffload } from "../../../collector/metrics/remote-write-offload.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { startTestCollector } from "../../helpers/collector.ts";
import { generalPath, recordingDeps, request } from "../../helpers/remote-write-arbitrary.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../../helpers/remote-write.ts";

const T0 = Date.UTC(2026, 0, 5);
const LIMIT = 32 * 1024 * 1024;
const helper = (name: string) => new URL(`../../helpers/${name}`, import.meta.url);
const warnings: string[] = [];
const log = createLogger("warn", "test", (line) => void warnings.push(line));

/** What the store is asked for a body through the offload; undefined: left to the main thread. */
async function throughOffload(off: RemoteWriteOffload, compressed: Uint8Array) {
  const cols = await off.decode(compressed, LIMIT);
  if (!cols) return undefined;
  try {
    const { deps, calls } = recordingDeps();
    const r = await writeRemoteColumns(deps, "t", cols, "rw");
    return { calls, skipped: r.skipped };
  } finally {
    off.columns.give(cols);
  }
}

// Calls with nothing to do (no definitions, no points) are no-ops either way.
const effective = (cs: unknown[]) => cs.filter((c) => ((c as unknown[])[2] as unknown[]).length > 0);

const bodyOf = (k0: number, n: number, t: number) =>
  remoteWriteBody(Array.from({ length: n }, (_, i) => ({ labels: { __name__: "rw_offload", series: `s${k0 + i}` }, samples: [[t, k0 + i] as [number, number]] })));

describe("remote write decoded in the worker thread", () => {
  it("asks the store for what the general path asks whenever the worker takes a body", async () => {
    const off = new RemoteWriteOffload(new RemoteWriteColumns(), { log });
    let taken = 0;
    let valid = 0;
    try {
      await fc.assert(
        fc.asyncProperty(request, async (raw) => {
          const general = await generalPath(raw);
          if (!general.error) valid++;
          // Twice: the first time label sets are new codes, the second time the worker knows them.
          for (let round = 0; round < 2; round++) {
            const got = await throughOffload(off, compressSync(Buffer.from(raw)));
            if (!got) continue;
            taken++;
            expect(general.error).toBeUndefined();
            expect(got.skipped).toBe(general.skipped);
            expect(effective(got.calls)).toEqual(effective(general.calls));
          }
        }),
        { numRuns: 1500 },
      );
    } finally {
      await off.close();
    }
    expect(valid).toBeGreaterThan(400);
    expect(taken).toBeGreaterThan(valid);
    expect(off.decoded).toBe(taken);
  });

  it("leaves a body that is not snappy, or decompresses past the limit, to the main thread", async () => {
    const off = new RemoteWriteOffload(new RemoteWriteColumns(), { log });
    try {
      expect(await off.decode(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]), LIMIT)).toBeUndefined();
      expect(await off.decode(bodyOf(0, 100, T0), 100)).toBeUndefined();
      // The worker is still there, and takes the next good body.
      expect(await throughOffload(off, bodyOf(0, 100, T0))).toBeDefined();
      expect(off.lost).toBe(0);
    } finally {
      await off.close();
    }
  });

  it.each([
    // 130 new series a body and the last body's 70: the dictionary's bound is passed every two bodies.
    ["the worker's dictionary", { maxCodes: 250 }, undefined],
    // Remote write's own cache starts again empty (its bound) while codes are mapped.
    ["remote write's cache", {}, 300],
  ] as const)("starts again on both sides past the bound of %s, each series keeping its own points", async (_, o, cacheEntries) => {
    const off = new RemoteWriteOffload(new RemoteWriteColumns(cacheEntries), { log, ...o });
    try {
      const seen = new Map<string, number>();
      let taken = 0;
      for (let round = 0; round < 10; round++) {
        const k0 = round * 130 - (round > 0 ? 70 : 0);
        const got = await throughOffload(off, bodyOf(k0, 200, T0 + round));
        if (!got) continue;
        taken++;
        for (const c of got.calls) {
          const [kind, , writes] = c as [string, string, { id: string; points: [number, number][] }[]];
          if (kind !== "points") continue;
          for (const w of writes) for (const [t, v] of w.points) seen.set(`${w.id}@${t}`, v);
        }
      }
      // A body that meets a new start is left to the main thread; those after are taken again.
      expect(taken).toBeGreaterThanOrEqual(4);
      expect(taken).toBeLessThan(10);
      expect(seen.size).toBe(taken * 200);
      for (const [key, v] of seen) expect(key.split("@")[0]).toBe(`rw_offload{series="s${v}"}`);
    } finally {
      await off.close();
    }
  });

  it.each([
    ["exits at its message (killed mid-request)", "promql-worker-exits.ts", {}],
    ["throws on its message", "promql-worker-throws.ts", {}],
    ["never answers", "promql-worker-hangs.ts", { timeoutMs: 300 }],
    ["cannot be loaded", "no-such-worker.ts", {}],
  ])("one that %s: its bodies are left to the main thread; warned once", async (_, script, o) => {
    warnings.length = 0;
    const off = new RemoteWriteOffload(new RemoteWriteColumns(), { log, script: helper(script), retryMs: 0, ...o });
    try {
      for (let i = 0; i < 2; i++) expect(await off.decode(bodyOf(0, 50, T0 + i), LIMIT)).toBeUndefined();
      expect(off.decoded).toBe(0);
      expect(off.lost).toBeGreaterThanOrEqual(1);
      expect(warnings.filter((l) => l.includes("remote-write worker ended"))).toHaveLength(1);
    } finally {
      await off.close();
    }
  });
});

describe("a collector's remote write", () => {
  it("decodes on the main thread while few requests are in flight, and starts no thread for them", async () => {
    const off = new RemoteWriteOffload(new RemoteWriteColumns(), { log });
    try {
      expect(await off.decode(bodyOf(0, 50, T0), LIMIT, MIN_IN_FLIGHT - 1)).toBeUndefined();
      expect(off.running).toBe(false);
      expect(await throughOffload(off, bodyOf(0, 50, T0))).toBeDefined();
      expect(off.running).toBe(true);
    } finally {
      await off.close();
    }
  });

  it("stores through the worker under many requests at once, and without it (--no-remote-write-worker) the same", async () => {
    for (const worker of [true, false]) {
      const col = await startTestCollector({ "remote-write-worker": worker });
      try {
        // Three waves of 40 requests at once, each of 30 series: more in flight than MIN_IN_FLIGHT.
        for (let round = 0; round < 3; round++) {
          const wave = Array.from({ length: 40 }, (_, k) => col.req("/prometheus/rw/api/v1/write", { method: "POST", body: bodyOf(k * 30, 30, T0 + round * 1000), headers: REMOTE_WRITE_HEADERS }));
          for (const r of await Promise.all(wave)) expect(r.status).toBe(204);
        }
        const metrics = await (await col.req("/metrics")).text();
        const decoded = Number(metrics.match(/^outpost_collector_remote_write_worker_bodies_total (\d+)$/m)?.[1] ?? -1);
        if (worker) expect(decoded).toBeGreaterThan(0);
        else expect(decoded).toBe(-1);
        const q = (await (await col.req(`/prometheus/rw/api/v1/query?query=${encodeURIComponent("count(rw_offload)")}&time=${(T0 + 2000) / 1000}`)).json()) as { data: { result: unknown[] } };
        expect(q.data.result).toEqual([{ metric: {}, value: [(T0 + 2000) / 1000, "1200"] }]);
        for (const k of [0, 599, 1199]) {
          const raw = await (await col.req(`/svc/metrics/gauges/${encodeURIComponent(`rw_offload{series="s${k}"}`)}/raw?start=${T0}&end=${T0 + 5000}&order=ASC`, { tenant: "rw" })).json();
          expect(raw).toEqual([0, 1, 2].map((r) => ({ timestamp: T0 + r * 1000, value: k })));
        }
      } finally {
        await col.close();
      }
    }
  });
});
