import { afterEach, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../helpers/remote-write.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function scrape(col: TestCollector, name: string): Promise<number> {
  const text = await (await fetch(`${col.url}/metrics`)).text();
  return Number(text.split("\n").find((l) => l.startsWith(`${name} `))?.split(" ")[1]);
}

const T0 = Date.now() - 3_600_000;
const points = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: T0 + from + i, value: i }));

describe("collector HTTP on a full disk", () => {
  it("answers writes 507 with an errorMsg, keeps answering reads, exposes the condition, and takes writes again once space returns", async () => {
    const disk = new SmallDisk(16);
    cleanups.push(() => disk.dispose());
    const col = await startTestCollector({ "self-metrics-interval": 0 }, disk.dir);
    cleanups.push(() => col.close());
    const write = (from: number, n: number) => col.req("/svc/metrics/gauges/g/raw", { method: "POST", json: points(from, n) });
    expect((await write(0, 100)).status).toBe(200);
    expect(await scrape(col, "outpost_collector_storage_full")).toBe(0);
    disk.fill();
    let res: Response | undefined;
    let written = 100;
    for (let i = 0; i < 300; i++) {
      res = await write(written, 2000);
      if (res.status !== 200) break;
      written += 2000;
    }
    expect(res?.status).toBe(507);
    expect((await body(res!)).errorMsg).toMatch(/Storage is full/);
    // Other interfaces' writes too.
    const trigger = await col.req("/svc/alerts/triggers", { method: "POST", json: { id: "new-trigger", name: "n", description: "d".repeat(20_000) } });
    expect(trigger.status).toBe(507);
    expect((await body(trigger)).errorMsg).toMatch(/Storage is full/);
    // The Influx and remote-write routes answer the same 507 in their own error bodies (Influx's
    // {"error"}, Prometheus' envelope), not a 500: their senders retry it.
    for (const path of ["/write?db=x", "/api/v2/write?org=o&bucket=b"]) {
      const influx = await col.req(path, { method: "POST", body: `full_m,host=h${path.length} v=1.5 ${(T0 + written) * 1e6}` });
      expect(influx.status, path).toBe(507);
      const b = await body(influx);
      expect(b.error).toMatch(/Storage is full/);
      expect(b.errorMsg).toBe(b.error);
    }
    const rw = await col.req("/api/v1/write", { method: "POST", headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody([{ labels: { __name__: "full_rw", job: "j" }, samples: [[T0 + written, 2]] }]) });
    expect(rw.status).toBe(507);
    expect(await body(rw)).toMatchObject({ status: "error", errorType: "internal", errorMsg: expect.stringMatching(/Storage is full/) });
    expect(await scrape(col, "outpost_collector_storage_full")).toBe(1);
    // Every acknowledged point is still read back.
    const read = await col.req(`/svc/metrics/gauges/g/raw?start=${T0}&end=${T0 + written}&limit=${written * 2}&order=ASC`);
    expect(read.status).toBe(200);
    expect((await body(read)).length).toBe(written);

    disk.free();
    await waitFor("writes accepted again", async () => ((await write(written, 100)).status === 200 ? true : undefined), 10_000, 200);
    await waitFor("condition cleared", async () => ((await scrape(col, "outpost_collector_storage_full")) === 0 ? true : undefined), 5000);
  });
});
