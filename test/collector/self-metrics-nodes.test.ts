import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateCollectorOptions } from "../../collector/config.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { waitFor } from "../helpers/ports.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";
import { Running } from "../helpers/program.ts";

/**
 * Two collectors on one PostgreSQL database store their own metrics in the same `_outpost`
 * tenant: each under its node name (collector:<node>:<name>, tagged collector=<node>), so
 * neither overwrites the other's series.
 */
let db: TestDatabase;
let a: TestCollector;
let b: TestCollector;
beforeAll(async () => {
  db = await createTestDatabase();
  const common = { "database-url": db.url, "self-metrics-interval": 200 };
  a = await startTestCollector({ ...common, "node-name": "node-a" });
  b = await startTestCollector({ ...common, "node-name": "node-b" });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

const self = { tenant: "_outpost" };

async function latest(c: TestCollector, type: "gauges" | "counters", id: string): Promise<number | undefined> {
  const res = await c.req(`/svc/metrics/${type}/${encodeURIComponent(id)}/raw?start=0&order=DESC&limit=1`, self);
  if (res.status === 204) return undefined;
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: number }[])[0]?.value;
}

describe("self-metrics of collectors sharing a database", () => {
  it("each collector's series under its node name, tagged with it; requests counted by the collector that answered them", async () => {
    for (let i = 0; i < 25; i++) expect((await a.req("/svc/alerts/triggers")).status).toBe(200);
    const requestsOf = (node: string) => `collector:${node}:outpost_http_requests_total:alerts:2xx`;
    // Read through b: a's series are in the database, not in a's memory.
    await waitFor("a's request count stored", async () => ((await latest(b, "counters", requestsOf("node-a"))) ?? 0) >= 25 ? true : undefined, 10_000, 100);
    expect((await latest(a, "counters", requestsOf("node-b"))) ?? 0).toBeLessThan(25);
    // Both write their process metrics, each in its own series.
    for (const node of ["node-a", "node-b"]) {
      await waitFor(`${node}'s memory stored`, async () => ((await latest(a, "gauges", `collector:${node}:process_resident_memory_bytes`)) ?? 0) > 0 ? true : undefined, 10_000, 100);
    }
    // Nothing under the name a collector alone uses.
    expect(await latest(a, "gauges", "collector:process_resident_memory_bytes")).toBeUndefined();

    await waitFor("the tags set", async () => {
      const res = await b.req("/svc/metrics/metrics?tags=collector:node-a", self);
      if (res.status !== 200) return undefined;
      const defs = (await res.json()) as { id: string; tags?: Record<string, string> }[];
      return defs.some((d) => d.id === requestsOf("node-a")) ? defs : undefined;
    }, 10_000, 100).then((defs) => {
      expect(defs.every((d) => d.id.startsWith("collector:node-a:") && d.tags?.collector === "node-a")).toBe(true);
    });
  });

  it("a collector started with the node name of a running one says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-namesake-"));
    const urlFile = join(dir, "database-url");
    writeFileSync(urlFile, `${db.url}\n`, { mode: 0o600 });
    const p = Running.start("collector", ["--data-dir", join(dir, "data"), "--http-port", "0", "--mqtt-port", "0", "--database-url-file", urlFile, "--node-name", "node-a"]);
    try {
      const line = await p.waitForLine(/another collector with this node name/, 30_000);
      expect(line).toMatch(/WARN .*nodeName=node-a other=node-a:\d+:/);
      await p.waitForLine(/collector ready/, 30_000);
    } finally {
      await p.stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a --node-name that is not a plain name", () => {
    for (const bad of ["a:b", "x y", "a".repeat(65)]) {
      expect(() => validateCollectorOptions({ "node-name": bad })).toThrow(/--node-name/);
    }
    expect(() => validateCollectorOptions({ "node-name": "eu-west.collector_2" })).not.toThrow();
  });
});
