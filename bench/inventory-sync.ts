#!/usr/bin/env bun
/**
 * Inventory over HTTP: POST /sync of one feed with RESOURCES resources (2 metrics each, 50
 * resource types), then the same sync again (nothing changes), a sync dropping a quarter of the
 * resources, a traversal, the tree hash, and single creates under the big feed.
 * Env: RESOURCES (default 2000).
 */
import { fmt, latency, row, rssMB, startCollectorProcess, tempDir } from "./_lib.ts";

const RESOURCES = Number(process.env.RESOURCES ?? 2000);
const HEADERS = { "Content-Type": "application/json", "Hawkular-Tenant": "bench" };

function structure(resources: number) {
  return {
    type: "feed",
    data: { id: "big" },
    children: {
      resourceType: Array.from({ length: 50 }, (_, i) => ({ data: { id: `T${i}` } })),
      metricType: [{ data: { id: "M", type: "GAUGE", unit: "NONE", collectionInterval: 10 } }],
      resource: Array.from({ length: resources }, (_, i) => ({
        data: { id: `r${i}`, resourceTypePath: `rt;T${i % 50}`, properties: { i } },
        children: { metric: [0, 1].map((m) => ({ data: { id: `m${m}`, metricTypePath: "../mt;M", collectionInterval: 10 } })) },
      })),
    },
  };
}

async function timed(label: string, fn: () => Promise<Response>, expect: number): Promise<void> {
  const a = performance.now();
  const res = await fn();
  const ms = performance.now() - a;
  if (res.status !== expect) throw new Error(`${label}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
  row(label, `${fmt(ms)} ms`);
}

const dir = tempDir("outpost-bench-inv-");
const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--synchronous", "NORMAL"]);
try {
  const inv = `${url}/svc/inventory`;
  const sync = (n: number) => () =>
    fetch(`${inv}/sync/f;big`, { method: "POST", headers: HEADERS, body: JSON.stringify({ structure: structure(n) }) });
  const entities = 1 + 50 + 1 + RESOURCES * 3;
  await timed(`first sync, ${fmt(entities)} entities created`, sync(RESOURCES), 204);
  await timed("same sync again (no change)", sync(RESOURCES), 204);
  await timed(`sync dropping ${fmt(RESOURCES / 4)} resources`, sync((RESOURCES * 3) / 4), 204);
  await timed("GET treeHash of the feed", () => fetch(`${inv}/entity/f;big/treeHash`, { headers: HEADERS }), 200);
  const trav = await latency(() => fetch(`${inv}/traversal/f;big/type=r;propertyName=i?per_page=10`, { headers: HEADERS }).then((r) => r.arrayBuffer()), 20);
  row("traversal f;big/type=r;propertyName=i, page of 10 (p50 / p99)", `${fmt(trav.p50, 1)} / ${fmt(trav.p99, 1)} ms`);
  let n = 0;
  const create = await latency(
    () =>
      fetch(`${inv}/entity/f;big/resource`, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify({ id: `extra${n++}`, resourceTypePath: "rt;T1" }),
      }).then((r) => r.arrayBuffer()),
    50,
  );
  row("POST one resource under the big feed (p50 / p99)", `${fmt(create.p50, 1)} / ${fmt(create.p99, 1)} ms`);
  row("collector RSS", `${fmt(rssMB(proc.pid))} MB`);
} finally {
  proc.kill();
  await proc.exited;
  dir.remove();
}
