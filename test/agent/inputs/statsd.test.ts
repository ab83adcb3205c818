/**
 * A real StatsD client library (hot-shots, DogStatsD tags) sending to the agent over UDP and
 * TCP: aggregated per flush interval, read back through the collector's Prometheus API.
 */
import { createSocket } from "node:dgram";
import StatsD from "hot-shots";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

let sys: InputsSystem;
let udpPort: number;
let tcpPort: number;

/** A UDP port that was free a moment ago. */
async function freeUdpPort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function sendRaw(text: string): Promise<void> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve, reject) => s.send(text, udpPort, "127.0.0.1", (e) => (e ? reject(e) : resolve())));
  s.close();
}

beforeAll(async () => {
  udpPort = await freeUdpPort();
  tcpPort = await freePort();
  sys = await startInputsSystem({ inputs: { statsd: { udp: `127.0.0.1:${udpPort}`, tcp: `127.0.0.1:${tcpPort}`, flush_interval: "1s", percentiles: [50, 90], max_packet_size: "8KB" } } });
}, 60_000);
afterAll(async () => {
  await sys?.close();
});

describe("StatsD from a client library", () => {
  test("counters, gauges, timers, histograms, distributions and sets over UDP, with DogStatsD tags", async () => {
    // Lines batched into datagrams of up to 1,400 bytes, as clients send them on busy hosts.
    const client = new StatsD({ host: "127.0.0.1", port: udpPort, globalTags: { env: "test" }, maxBufferSize: 1400, bufferFlushInterval: 10 });
    for (let i = 0; i < 1000; i++) client.increment("app.requests", 1, { route: "/a" });
    client.gauge("app.queue", 5);
    for (const v of [10, 20, 30, 40, 100]) client.timing("app.latency", v);
    client.histogram("app.size", 512);
    client.distribution("app.rtt", 7);
    for (const u of ["u1", "u2", "u1"]) client.set("app.users", u);
    await new Promise<void>((r) => client.close(() => r()));
    const r = await sys.until('app_requests_total{route="/a"} == 1000', 1, 20_000);
    expect(r[0]!.metric).toEqual({ __name__: "app_requests_total", env: "test", feed: sys.feed, route: "/a" });
    expect((await sys.query("app_queue"))[0]!.value[1]).toBe("5");
    const q = await sys.query('app_latency{env="test"}');
    expect(Object.fromEntries(q.map((s) => [s.metric.quantile, s.value[1]]))).toEqual({ "0.5": "30", "0.9": "100" });
    expect((await sys.query("app_latency_count"))[0]!.value[1]).toBe("5");
    expect((await sys.query("app_latency_sum"))[0]!.value[1]).toBe("200");
    expect((await sys.query("app_latency_min"))[0]!.value[1]).toBe("10");
    expect((await sys.query("app_latency_max"))[0]!.value[1]).toBe("100");
    expect((await sys.query("app_size_count"))[0]!.value[1]).toBe("1");
    expect((await sys.query("app_rtt_sum"))[0]!.value[1]).toBe("7");
    expect((await sys.until("app_users"))[0]!.value[1]).toBe("2");
    // A burst of 1,000 packets is one point per flush, not 1,000 points.
    const id = `app_requests_total{env="test",feed="${sys.feed}",route="/a"}`;
    const raw = await body(await sys.col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0`, { tenant: sys.tenant }));
    expect(raw.length).toBeLessThan(20);
  }, 30_000);

  test("sample rates, gauge changes, several values per line, bad lines skipped", async () => {
    await sendRaw("rated:1|c|@0.1\ntemp:20|g\ntemp:+5|g\ntemp:-2|g\nmulti:1:2:3|c\nbroken|x\nnot a line\n_e{5,4}:title|text\n");
    expect((await sys.until("rated_total == 10"))[0]!.value[1]).toBe("10");
    expect((await sys.until("temp == 23"))[0]!.value[1]).toBe("23");
    expect((await sys.until("multi_total == 6"))[0]!.value[1]).toBe("6");
    const metrics = await (await fetch(`${sys.agent.url}/metrics`)).text();
    expect(Number(/^outpost_agent_input_errors_total\{input="statsd"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
  }, 30_000);

  test("over TCP, newline-separated lines split across writes", async () => {
    const client = new StatsD({ host: "127.0.0.1", port: tcpPort, protocol: "tcp", maxBufferSize: 0 });
    client.increment("tcp.hits", 3, { via: "tcp" });
    client.gauge("tcp.level", 9);
    await new Promise<void>((r) => client.close(() => r()));
    const sock = await Bun.connect({ hostname: "127.0.0.1", port: tcpPort, socket: { data() {} } });
    sock.write("split.across:");
    await Bun.sleep(50);
    sock.write("4|c\n");
    sock.end();
    expect((await sys.until('tcp_hits_total{via="tcp"} == 3'))[0]!.value[1]).toBe("3");
    expect((await sys.until("tcp_level == 9"))[0]!.value[1]).toBe("9");
    expect((await sys.until("split_across_total == 4"))[0]!.value[1]).toBe("4");
  }, 30_000);

  test("an oversized datagram is dropped and counted, the socket goes on", async () => {
    const before = await (await fetch(`${sys.agent.url}/metrics`)).text();
    const errors = (t: string) => Number(/^outpost_agent_input_errors_total\{input="statsd"\} (\d+)$/m.exec(t)?.[1] ?? 0);
    await sendRaw(`big:1|c\n${"x".repeat(10_000)}`);
    await sendRaw("after.big:1|c");
    await sys.until("after_big_total");
    expect(await sys.query("big_total")).toEqual([]);
    await waitFor("the error counted", async () => (errors(await (await fetch(`${sys.agent.url}/metrics`)).text()) > errors(before) ? true : undefined));
  }, 30_000);
});
