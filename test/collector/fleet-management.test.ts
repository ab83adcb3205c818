/**
 * Fleet management over a real embedded broker, a real collector (SQLite, and PostgreSQL in the
 * "postgres" project) and agents started in this process (docs/fleet.md): identities bound to
 * feeds and conflicts refused without disturbing the holder, a feed moved by an admin, and
 * remote configuration revisions rolled to a tag group, validated, applied, refused by an agent
 * that cannot apply them (the previous one kept), and pinned options kept local.
 */
import { createSocket, type Socket } from "node:dgram";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const dirs: string[] = [];
const agents: Agent[] = [];
let col: TestCollector;
let broker = "";
let exporter: ReturnType<typeof Bun.serve>;
let taken: Socket;
let takenPort = 0;

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-fleet-"));
  dirs.push(d);
  return d;
}

async function agent(feed: string, extra: Record<string, unknown> = {}, dataDir = tempDir()): Promise<Agent & { dataDir: string }> {
  const a = await startAgent({ broker, tenant: "t1", feed, "data-dir": dataDir, listen: "127.0.0.1:0", "log-level": "silent", interval: 60_000, "reconnect-min": 100, "reconnect-max": 500, "ack-timeout": 1000, "host-metrics": false, ...extra });
  agents.push(a);
  return Object.assign(a, { dataDir });
}

async function push(a: Agent, id: string, n: number, from: number): Promise<void> {
  const res = await fetch(`${a.url}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ id, dataPoints: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) }]) });
  expect(res.status).toBe(200);
}

async function points(id: string): Promise<number[]> {
  const res = await col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 3_600_000}&order=ASC&limit=100000`);
  if (res.status === 204) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { timestamp: number }[]).map((p) => p.timestamp);
}

async function configOf(feed: string) {
  const res = await col.req(`/svc/fleet/feeds/${feed}/config`);
  expect(res.status).toBe(200);
  return body(res);
}

const scraped = (feed: string, port: number) => `fm_probe{feed="${feed}",instance="127.0.0.1:${port}",job="fm"}`;

beforeAll(async () => {
  const port = await freePort();
  broker = `mqtt://127.0.0.1:${port}`;
  col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1" });
  exporter = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("# TYPE fm_probe gauge\nfm_probe 1\n") });
  takenPort = await freePort();
  taken = createSocket("udp4");
  await new Promise<void>((resolve) => taken.bind(takenPort, "127.0.0.1", () => resolve()));
});

afterAll(async () => {
  for (const a of agents.splice(0)) await a.stop();
  taken?.close();
  exporter?.stop(true);
  await col?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("agent identity", () => {
  it("binds a feed to its first agent, refuses a second one without disturbing the first, and moves only when an admin says so", async () => {
    const holder = await agent("id-1");
    const id1 = readFileSync(join(holder.dataDir, "identity.key"), "utf8");
    expect(id1).toContain("PRIVATE KEY");
    const view = await waitFor("the claim", async () => {
      const r = await col.req("/svc/fleet/feeds/id-1/identity");
      return r.status === 200 ? body(r) : undefined;
    });
    const holderId = view.holder.instance as string;
    expect(holderId).toMatch(/^[0-9a-f]{32}$/);
    expect(view.changes).toEqual([expect.objectContaining({ action: "claimed", author: "agent", to: holderId })]);

    const clone = await agent("id-1");
    const conflict = await waitFor("the conflict", async () => {
      const list = (await col.req("/svc/fleet/conflicts")).status === 200 ? await body(await col.req("/svc/fleet/conflicts")) : [];
      return list.find((c: { feed: string }) => c.feed === "id-1");
    });
    expect(conflict.instance).not.toBe(holderId);
    const t0 = Date.now() - 60_000;
    await push(clone, "clone.points", 50, t0);
    await push(holder, "holder.points", 500, t0);
    // The holder keeps delivering (its connection is not taken over); the clone's points wait in its buffer.
    await waitFor("holder's points", async () => ((await points("holder.points")).length === 500 ? true : undefined));
    await Bun.sleep(1500);
    expect(await points("clone.points")).toEqual([]);
    await push(holder, "holder.points", 500, t0 + 500);
    await waitFor("more of the holder's points", async () => ((await points("holder.points")).length === 1000 ? true : undefined));
    const feeds = await body(await col.req("/svc/fleet/feeds"));
    const f = feeds.find((x: { feed: string }) => x.feed === "id-1");
    expect(f.identity.instance).toBe(holderId);
    expect(f.conflicts.map((c: { instance: string }) => c.instance)).toEqual([conflict.instance]);
    expect(f.presence.state).toBe("up");

    // A move is an admin's; an unknown body is a 400.
    expect((await col.req("/svc/fleet/feeds/id-1/identity", { method: "PUT", json: { instance: "nope" } })).status).toBe(400);
    const moved = await col.req("/svc/fleet/feeds/id-1/identity", { method: "PUT", json: { instance: conflict.instance } });
    expect(moved.status).toBe(200);
    expect(await body(moved)).toMatchObject({ from: holderId, to: conflict.instance });
    // The new holder sends what waited; the old one's points wait now.
    await waitFor("the clone's points, once", async () => ((await points("clone.points")).length === 50 ? true : undefined));
    await push(holder, "holder.points", 10, t0 + 1000);
    await Bun.sleep(1500);
    expect((await points("holder.points")).length).toBe(1000);
    const after = await body(await col.req("/svc/fleet/feeds/id-1/identity"));
    expect(after.changes.map((c: { action: string; author: string }) => [c.action, c.author])).toEqual([
      ["claimed", "agent"],
      ["moved", "anonymous"],
    ]);
    // The new holder's conflict is resolved; the old holder is told and waits (a conflict again when it next claims).
    expect(after.conflicts).toEqual([]);
    expect(after.holder.instance).toBe(conflict.instance);
    await holder.stop();
    await clone.stop();
  });

  it("releases a feed: the agent refused until then claims it again and delivers what waited", async () => {
    const first = await agent("rel-1");
    await waitFor("the claim", async () => ((await col.req("/svc/fleet/feeds/rel-1/identity")).status === 200 ? true : undefined));
    const second = await agent("rel-1");
    await waitFor("the conflict", async () => ((await body(await col.req("/svc/fleet/feeds/rel-1/identity"))).conflicts.length === 1 ? true : undefined));
    const t0 = Date.now() - 60_000;
    await push(second, "rel.points", 30, t0);
    await first.stop();
    expect((await col.req("/svc/fleet/feeds/nobody/identity", { method: "DELETE" })).status).toBe(404);
    const released = await col.req("/svc/fleet/feeds/rel-1/identity", { method: "DELETE" });
    expect(released.status).toBe(200);
    await waitFor("the second agent's points", async () => ((await points("rel.points")).length === 30 ? true : undefined));
    const view = await body(await col.req("/svc/fleet/feeds/rel-1/identity"));
    expect(view.conflicts).toEqual([]);
    expect(view.changes.map((c: { action: string }) => c.action)).toEqual(["claimed", "released", "claimed"]);
    expect(view.holder.instance).toBe(view.changes[2].to);
    await second.stop();
  });

  it("lets only an admin move or release a feed", async () => {
    const auth = await writeTestAuthFile([{ name: "ops", password: "pw", tenants: ["t1"] }]);
    dirs.push(auth.dir);
    const secured = await startTestCollector({ "auth-file": auth.path }, undefined, basic("ops", "pw"));
    try {
      const r = await secured.req("/svc/fleet/feeds/x/identity", { method: "PUT", json: { instance: "a".repeat(32) } });
      expect(r.status).toBe(403);
      expect((await body(r)).errorMsg).toMatch(/admin/);
      expect((await secured.req("/svc/fleet/feeds/x/identity", { method: "DELETE" })).status).toBe(403);
      // Revisions are the tenant's, made with the credential's name; another tenant's are out of reach.
      const made = await secured.req("/svc/fleet/config/revisions", { method: "POST", json: { target: { all: true }, config: { "log-level": "warn" } } });
      expect(made.status).toBe(201);
      expect(await body(made)).toMatchObject({ revision: 1, author: "ops" });
      expect((await secured.req("/svc/fleet/config/revisions", { tenant: "t2" })).status).toBe(403);
      expect((await secured.req("/svc/fleet/config/revisions", { method: "POST", tenant: "t2", json: { target: { all: true }, config: {} } })).status).toBe(403);
      expect((await secured.req("/svc/fleet/config/revisions", { authorization: null })).status).toBe(401);
    } finally {
      await secured.close();
    }
  });
});

describe("remote configuration", () => {
  it("refuses an invalid revision with the reason, before anything is stored", async () => {
    const cases: [unknown, RegExp][] = [
      [{ target: { all: true }, config: { "host-intervall": "30s" } }, /did you mean "host-interval"/],
      [{ target: { all: true }, config: { tenant: "other" } }, /tenant: not an option a remote configuration can set/],
      [{ target: { all: true }, config: { "host-interval": "30" } }, /needs a unit/],
      [{ target: { all: true }, config: { inputs: { statsd: { udp: "nowhere" } } } }, /statsd\.udp: "nowhere" is not host:port/],
      [{ target: { tags: {} }, config: {} }, /tags/],
      [{ target: { feed: "a", all: true }, config: {} }, /target/],
      [{ config: {} }, /target/],
    ];
    for (const [json, msg] of cases) {
      const r = await col.req("/svc/fleet/config/revisions", { method: "POST", json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect((await body(r)).errorMsg, JSON.stringify(json)).toMatch(msg);
    }
    // The editor's check answers the outcome; only a body without a configuration is a 400.
    const check = await col.req("/svc/fleet/config/check", { method: "POST", json: { config: { "buffer-max-bytes": "1KiB" } } });
    expect(check.status).toBe(200);
    expect(await body(check)).toEqual({ valid: false, errorMsg: expect.stringMatching(/buffer-max-bytes/) });
    expect(await body(await col.req("/svc/fleet/config/check", { method: "POST", json: { config: { "log-level": "debug" } } }))).toEqual({ valid: true });
    expect((await col.req("/svc/fleet/config/check", { method: "POST", json: { nothing: 1 } })).status).toBe(400);
    expect((await col.req("/svc/fleet/config/revisions")).status).toBe(204);
  });

  it("rolls a revision to the feeds of a tag, which apply it live and report; one that cannot apply keeps the previous", async () => {
    const port = (exporter.port ?? 0) as number;
    const e1 = await agent("edge-1", { tags: ["role=edge"] });
    await agent("edge-2", { tags: ["role=edge", "site=paris"] });
    const core = await agent("core-1", { tags: ["role=core"], pin: ["inputs"] });
    for (const feed of ["edge-1", "edge-2", "core-1"]) await waitFor(`${feed}'s claim`, async () => ((await col.req(`/svc/fleet/feeds/${feed}/identity`)).status === 200 ? true : undefined));

    const job = { prometheus: [{ job: "fm", targets: [`127.0.0.1:${port}`], interval: "1s" }] };
    const r1 = await col.req("/svc/fleet/config/revisions", { method: "POST", json: { target: { tags: { role: "edge" } }, config: { inputs: job }, comment: "scrape the probe" } });
    expect(r1.status).toBe(201);
    const rev1 = await body(r1);
    expect(rev1).toMatchObject({ revision: 1, author: "anonymous", comment: "scrape the probe" });
    expect(r1.headers.get("location")).toMatch(/\/svc\/fleet\/config\/revisions\/1$/);
    for (const feed of ["edge-1", "edge-2"]) {
      await waitFor(`${feed} applies revision 1`, async () => ((await configOf(feed)).state === "APPLIED" ? true : undefined));
      await waitFor(`${feed} scrapes`, async () => ((await points(scraped(feed, port))).length > 0 ? true : undefined));
    }
    expect(await configOf("core-1")).toMatchObject({ desired: 0, state: "UNSET" });
    expect(await points(scraped("core-1", port))).toEqual([]);
    expect(existsSync(join(e1.dataDir, "remote-config.json"))).toBe(true);

    // edge-1 alone: StatsD on a port already taken: valid by the schema, impossible on the host.
    const r2 = await col.req("/svc/fleet/config/revisions", { method: "POST", json: { target: { feed: "edge-1" }, config: { inputs: { ...job, statsd: { udp: `127.0.0.1:${takenPort}` } } } } });
    expect(r2.status).toBe(201);
    const failed = await waitFor("edge-1 refuses revision 2", async () => {
      const v = await configOf("edge-1");
      return v.state === "FAILED" ? v : undefined;
    });
    expect(failed).toMatchObject({ desired: 2, applied: 1, appliedRevision: { revision: 1 }, desiredRevision: { revision: 2 } });
    expect(failed.error).toMatch(/StatsD cannot listen on 127\.0\.0\.1:\d+/);
    // Revision 1 still runs: the scrapes go on.
    const before = (await points(scraped("edge-1", port))).length;
    await waitFor("edge-1 still scraping", async () => ((await points(scraped("edge-1", port))).length > before + 1 ? true : undefined));

    // To every feed; core-1 pins its inputs, so it keeps them and says so. edge-1 can apply this one.
    const r3 = await col.req("/svc/fleet/config/revisions", { method: "POST", json: { target: { all: true }, config: { "host-interval": "20s", inputs: job } } });
    expect(r3.status).toBe(201);
    const core3 = await waitFor("core-1 applies revision 3, keeping its inputs", async () => {
      const v = await configOf("core-1");
      return v.state === "APPLIED" && v.applied === 3 ? v : undefined;
    });
    expect(core3.kept).toEqual(["inputs"]);
    for (const feed of ["edge-1", "edge-2"]) await waitFor(`${feed} applies revision 3`, async () => ((await configOf(feed)).applied === 3 ? true : undefined));
    expect(await configOf("edge-1")).toMatchObject({ desired: 3, applied: 3, state: "APPLIED" });
    await Bun.sleep(1500);
    expect(await points(scraped("core-1", port))).toEqual([]);
    expect(core).toBeDefined();

    const listed = await body(await col.req("/svc/fleet/config/feeds"));
    expect(listed.map((v: { feed: string; desired: number }) => [v.feed, v.desired]).filter(([f]: [string]) => ["edge-1", "edge-2", "core-1"].includes(f))).toEqual([
      ["core-1", 3],
      ["edge-1", 3],
      ["edge-2", 3],
    ]);
    expect((await body(await col.req("/svc/fleet/config/revisions"))).map((r: { revision: number }) => r.revision)).toEqual([3, 2, 1]);
  });
});
