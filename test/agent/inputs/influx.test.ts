/**
 * Influx line protocol on the agent's local API, written by real client libraries: the
 * InfluxDB 2.x client (@influxdata/influxdb-client, /api/v2/write with a token, gzip) and the
 * 1.x client (influx, /write), read back through the collector as the collector's own Influx
 * route maps them, plus the feed label.
 */
import { InfluxDB, Point } from "@influxdata/influxdb-client";
import { InfluxDB as InfluxV1 } from "influx";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body } from "../../helpers/collector.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

let sys: InputsSystem;
beforeAll(async () => {
  sys = await startInputsSystem({});
}, 60_000);
afterAll(async () => {
  await sys?.close();
});

describe("Influx clients writing to the agent", () => {
  test("2.x client: fields become gauges <measurement>_<field>, tags labels; gzip bodies", async () => {
    const t = Date.now() - 1000;
    const write = new InfluxDB({ url: sys.agent.url!, token: "unused", writeOptions: { gzipThreshold: 0 } }).getWriteApi("org", "bucket", "ms");
    write.writePoint(new Point("cpu").tag("host", "web-1").tag("core", "0").floatField("usage", 12.5).intField("ticks", 42).booleanField("busy", true).stringField("state", "ok").timestamp(new Date(t)));
    await write.close();
    const r = await sys.until('cpu_usage{host="web-1"}');
    expect(r[0]!.metric).toEqual({ __name__: "cpu_usage", core: "0", feed: sys.feed, host: "web-1" });
    expect(r[0]!.value[1]).toBe("12.5");
    expect((await sys.query('cpu_ticks{host="web-1"}'))[0]!.value[1]).toBe("42");
    expect((await sys.query('cpu_busy{host="web-1"}'))[0]!.value[1]).toBe("1");
    // A string field is a string metric, read through the Hawkular API.
    const id = `cpu_state{core="0",feed="${sys.feed}",host="web-1"}`;
    const raw = await body(await sys.col.req(`/svc/metrics/strings/${encodeURIComponent(id)}/raw?start=0`, { tenant: sys.tenant }));
    expect(raw).toEqual([{ timestamp: t, value: "ok" }]);
  }, 30_000);

  test("1.x client, precision seconds", async () => {
    const client = new InfluxV1({ host: "127.0.0.1", port: Number(new URL(sys.agent.url!).port), database: "db" });
    const s = Math.floor(Date.now() / 1000) - 5;
    await client.writePoints([{ measurement: "disk", tags: { dev: "sda" }, fields: { free: 1024 }, timestamp: new Date(s * 1000) }], { precision: "s" });
    const r = await sys.until('disk_free{dev="sda"}');
    expect(r[0]!.metric.feed).toBe(sys.feed);
    expect((await sys.query('disk_free{dev="sda"}', s * 1000))[0]!.value).toEqual([s, "1024"]);
  }, 30_000);

  test("a bad line refuses the request with Influx's error form, nothing of it is kept", async () => {
    const res = await fetch(`${sys.agent.url}/api/v2/write?precision=ms`, { method: "POST", body: "good,a=1 v=1\nbad line here\n" });
    expect(res.status).toBe(400);
    const b = await body(res);
    expect(b.error).toMatch(/unable to parse line 2/);
    expect(b.errorMsg).toBe(b.error);
    expect((await fetch(`${sys.agent.url}/write?precision=xx`, { method: "POST", body: "m v=1" })).status).toBe(400);
    expect(await sys.query('good_v{a="1"}')).toEqual([]);
  });
});
