/**
 * Fleet management with real processes (docs/fleet.md): one collector (`bun collector/main.ts`,
 * its embedded broker) and five agents from a release binary compiled as `npm run release`
 * compiles it, on ephemeral ports. A configuration rolled to a group by tag is applied by
 * exactly that group and reported; an invalid one is refused by the API; one that fails on an
 * agent is reported and the previous kept; a sixth agent claiming a held feed is refused while
 * the holder keeps delivering. Every point written to the five agents is read back exactly once.
 */
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compile } from "../../deploy/release/binaries.ts";
import { releaseInfo } from "../../deploy/release/build-info.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

const TENANT = "fleet-e2e";
const dir = mkdtempSync(join(tmpdir(), "outpost-fleet-e2e-"));
const binary = join(dir, "outpost-agent");
let collector: Proc;
let collectorUrl = "";
let broker = "";
let exporter: ReturnType<typeof Bun.serve>;
let taken: Socket;
let takenPort = 0;

interface RunningAgent {
  feed: string;
  url: string;
  proc: Proc;
  /** Points written to it: timestamps of its series, for the exactly-once check. */
  written: number;
}
const agents: RunningAgent[] = [];
const extra: Proc[] = [];
const T0 = Date.now() - 3_600_000;

const api = (path: string, init: RequestInit = {}) => fetch(`${collectorUrl}${path}`, { ...init, headers: { "Content-Type": "application/json", "Svc-Tenant": TENANT, ...init.headers } });
const json = async <T>(path: string): Promise<T> => {
  const r = await api(path);
  return (r.status === 204 ? [] : await r.json()) as T;
};

async function startAgent(name: string, feed: string, args: string[]): Promise<{ url: string; proc: Proc }> {
  const port = await freePort();
  const proc = new Proc(name, [
    binary, "--broker", broker, "--tenant", TENANT, "--feed", feed, "--data-dir", join(dir, `${name}-data`), "--listen", `127.0.0.1:${port}`,
    "--interval", "2s", "--host-metrics", "false", "--ack-timeout", "2s", "--reconnect-min", "200ms", "--reconnect-max", "1s", "--log-level", "info", ...args,
  ], dir);
  proc.start();
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, proc);
  return { url, proc };
}

/** Writes the next 200 points of the agent's own series `fleet.<feed>` through its write API. */
async function write(a: { feed: string; url: string; written: number }): Promise<void> {
  const from = a.written;
  const dataPoints = Array.from({ length: 200 }, (_, i) => ({ timestamp: T0 + from + i, value: from + i }));
  const res = await fetch(`${a.url}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ id: `fleet.${a.feed}`, dataPoints }]) });
  expect(res.status).toBe(200);
  a.written += 200;
}
const writeAll = () => Promise.all(agents.map(write));

async function raw(id: string): Promise<{ timestamp: number; value: number }[]> {
  const r = await api(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 3_600_000}&order=ASC&limit=100000`);
  return r.status === 204 ? [] : ((await r.json()) as { timestamp: number; value: number }[]);
}

const scraped = (feed: string) => `fleet_probe{feed="${feed}",instance="127.0.0.1:${exporter.port}",job="probe"}`;
const configOf = (feed: string) => json<{ desired: number; applied: number; state: string; error?: string; kept?: string[] }>(`/svc/fleet/feeds/${feed}/config`);

beforeAll(async () => {
  // The release's compile step for this machine (about 2 s).
  await compile("agent", process.arch === "arm64" ? "linux-arm64" : "linux-x64", releaseInfo(), binary);
  const httpPort = await freePort();
  const mqttPort = await freePort();
  collectorUrl = `http://127.0.0.1:${httpPort}`;
  broker = `mqtt://127.0.0.1:${mqttPort}`;
  collector = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(httpPort), "--http-host", "127.0.0.1", "--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1", "--data-dir", join(dir, "collector"), "--log-level", "info"], dir);
  collector.start();
  await waitHealthy(collectorUrl, collector);
  exporter = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("# TYPE fleet_probe gauge\nfleet_probe 1\n") });
  takenPort = await freePort();
  taken = createSocket("udp4");
  await new Promise<void>((resolve) => taken.bind(takenPort, "127.0.0.1", () => resolve()));
  const tags = ["role=edge", "role=edge", "role=edge", "role=core", "role=core"];
  for (let i = 0; i < 5; i++) {
    const feed = `site-${i + 1}`;
    const { url, proc } = await startAgent(`agent-${i + 1}`, feed, ["--tags", tags[i]!]);
    agents.push({ feed, url, proc, written: 0 });
  }
  for (const a of agents) await waitFor(`${a.feed} claims its feed`, async () => ((await api(`/svc/fleet/feeds/${a.feed}/identity`)).status === 200 ? true : undefined));
}, 120_000);

afterAll(async () => {
  for (const p of [...agents.map((a) => a.proc), ...extra, collector]) await p?.kill("SIGKILL");
  taken?.close();
  exporter?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const logs = () => [...agents.map((a) => a.proc.tail(8)), ...extra.map((p) => p.tail(8)), collector.tail(20)].join("\n");

describe("a fleet of five agents", () => {
  test("a configuration rolled to a tag is applied by exactly that group; invalid and failing ones are refused; a clone is refused while the holder delivers; every point once", async () => {
    await writeAll();

    // Invalid: refused by the API, nothing stored.
    const bad = await api("/svc/fleet/config/revisions", { method: "POST", body: JSON.stringify({ target: { tags: { role: "edge" } }, config: { inputs: { prometheus: [{ job: "probe", targets: ["no-port"] }] } } }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errorMsg: string }).errorMsg).toMatch(/inputs\.prometheus\[0\]\.targets: "no-port" is not host:port/);
    expect((await api("/svc/fleet/config/revisions")).status).toBe(204);

    // Revision 1 to role=edge: site-1..3 scrape the probe, site-4 and 5 do not.
    const job = { prometheus: [{ job: "probe", targets: [`127.0.0.1:${exporter.port}`], interval: "1s" }] };
    const r1 = await api("/svc/fleet/config/revisions", { method: "POST", body: JSON.stringify({ target: { tags: { role: "edge" } }, config: { inputs: job, "log-level": "info" }, comment: "probe the edge" }) });
    expect(r1.status).toBe(201);
    await writeAll();
    try {
      for (const feed of ["site-1", "site-2", "site-3"]) {
        await waitFor(`${feed} applies revision 1`, async () => ((await configOf(feed)).state === "APPLIED" ? true : undefined), 30_000);
        await waitFor(`${feed} scrapes`, async () => ((await raw(scraped(feed))).length > 0 ? true : undefined), 30_000);
      }
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${logs()}`);
    }
    for (const feed of ["site-4", "site-5"]) expect(await configOf(feed)).toMatchObject({ desired: 0, applied: 0, state: "UNSET" });
    const states = await json<{ feed: string; desired: number; applied: number; state: string }[]>("/svc/fleet/config/feeds");
    expect(states.map((s) => [s.feed, s.desired, s.applied, s.state])).toEqual([
      ["site-1", 1, 1, "APPLIED"],
      ["site-2", 1, 1, "APPLIED"],
      ["site-3", 1, 1, "APPLIED"],
      ["site-4", 0, 0, "UNSET"],
      ["site-5", 0, 0, "UNSET"],
    ]);

    // Revision 2 for site-2 alone: valid, but its StatsD port is taken on the host.
    const r2 = await api("/svc/fleet/config/revisions", { method: "POST", body: JSON.stringify({ target: { feed: "site-2" }, config: { inputs: { ...job, statsd: { udp: `127.0.0.1:${takenPort}` } } } }) });
    expect(r2.status).toBe(201);
    const failed = await waitFor("site-2 refuses revision 2", async () => {
      const v = await configOf("site-2");
      return v.state === "FAILED" ? v : undefined;
    }, 30_000);
    expect(failed).toMatchObject({ desired: 2, applied: 1 });
    expect(failed.error).toMatch(new RegExp(`StatsD cannot listen on 127\\.0\\.0\\.1:${takenPort}`));
    expect(agents[1]!.proc.tail(40)).toMatch(/could not apply remote configuration revision 2; keeping revision 1/);
    const before = (await raw(scraped("site-2"))).length;
    await waitFor("site-2 still runs revision 1", async () => ((await raw(scraped("site-2"))).length > before + 1 ? true : undefined), 30_000);
    await writeAll();

    // A clone of site-1 (its own data folder, so its own identity): refused, the holder undisturbed.
    const clone = await startAgent("clone-of-site-1", "site-1", ["--tags", "role=edge"]);
    extra.push(clone.proc);
    const conflict = await waitFor("the conflict", async () => (await json<{ feed: string; instance: string; host?: string }[]>("/svc/fleet/conflicts")).find((c) => c.feed === "site-1"), 30_000);
    const holder = (await json<{ holder: { instance: string } }>("/svc/fleet/feeds/site-1/identity")).holder.instance;
    expect(conflict.instance).not.toBe(holder);
    const cloneLine = await waitFor("the clone's line", () => readFileSync(join(dir, "clone-of-site-1-1.log"), "utf8").split("\n").find((l) => /is held by another agent/.test(l)), 20_000);
    expect(cloneLine).toContain(`feed site-1 of tenant ${TENANT} is held by another agent (identity ${holder}`);
    expect(cloneLine).toMatch(/start it with its own --feed and an empty --data-dir/);
    expect(collector.tail(200)).toMatch(new RegExp(`refused the claim of feed site-1 by identity ${conflict.instance}.*identity ${holder}.*holds it since`));
    const clonePoints = { feed: "site-1-clone", url: clone.url, written: 0 };
    await write(clonePoints);
    for (let i = 0; i < 3; i++) {
      await writeAll();
      await Bun.sleep(500);
    }
    const feeds = await json<{ feed: string; presence?: { state: string }; identity?: { instance: string }; conflicts?: { instance: string }[]; config?: { state: string } }[]>("/svc/fleet/feeds?cpuRange=1h");
    const site1 = feeds.find((f) => f.feed === "site-1")!;
    expect(site1).toMatchObject({ presence: { state: "up" }, identity: { instance: holder }, conflicts: [{ instance: conflict.instance }], config: { state: "APPLIED" } });

    // Every point written to the five agents, exactly once; none of the clone's.
    try {
      for (const a of agents) {
        const got = await waitFor(`all of ${a.feed}'s points`, async () => {
          const pts = await raw(`fleet.${a.feed}`);
          return pts.length >= a.written ? pts : undefined;
        }, 30_000);
        expect(got.map((p) => p.timestamp)).toEqual(Array.from({ length: a.written }, (_, i) => T0 + i));
        expect(got.map((p) => p.value)).toEqual(Array.from({ length: a.written }, (_, i) => i));
      }
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${logs()}`);
    }
    expect(await raw("fleet.site-1-clone")).toEqual([]);
    expect(agents[0]!.proc.running && clone.proc.running).toBe(true);
  }, 180_000);
});
