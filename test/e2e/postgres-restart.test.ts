import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { Running, run } from "../helpers/program.ts";
import { DatabaseCluster, tenantRequest } from "./database-cluster.ts";

/**
 * A real collector process on its own PostgreSQL database (--database-url-file): what it stores
 * of metrics, alerts and inventory is read back by the next collector process, started on a fresh data
 * folder, so it cannot come from SQLite files. The URL's password appears nowhere an operator's
 * neighbours could read it: not in the process's command line, not in its log.
 */
const PASSWORD = "pg-secret-b7c1e9";
const cluster = new DatabaseCluster("pg-e2e");
beforeAll(() => cluster.setUp({ broker: false }));
afterAll(() => cluster.tearDown());

const startCollector = (urlFile: string) => cluster.startCollector({ urlFile });
const req = tenantRequest("acme");

describe("a collector on PostgreSQL, restarted", () => {
  it("keeps points, triggers and inventory entities in the database, and never shows the URL's password", async () => {
    // The tests' server takes a password (test/helpers/postgres-server.ts): the URL carries it, as in production.
    const urlFile = cluster.writeUrlFile(cluster.db.url);
    const secret = decodeURIComponent(new URL(cluster.db.url).password);
    expect(secret.length).toBeGreaterThanOrEqual(16);

    const first = await startCollector(urlFile);
    expect(first.p.lines.join("\n")).toMatch(/INFO .*metrics, alerts, inventory, forecasting and agent releases are stored in PostgreSQL/);
    const t0 = Date.now() - 120_000;
    const points = [{ id: "cpu", data: [{ timestamp: t0, value: 0.5 }, { timestamp: t0 + 60_000, value: 0.75 }] }];
    expect((await req(first.url, "/svc/metrics/gauges/raw", { method: "POST", json: points })).status).toBe(200);
    const trigger = { trigger: { id: "disk-full", name: "Disk full", enabled: true }, conditions: [{ type: "THRESHOLD", dataId: "disk.used", operator: "GT", threshold: 90 }] };
    expect((await req(first.url, "/svc/alerts/triggers/trigger", { method: "POST", json: trigger })).status).toBe(200);
    expect((await req(first.url, "/svc/inventory/entity/feed", { method: "POST", json: { id: "edge-17", properties: { os: "linux" } } })).status).toBe(201);
    const cmdline = readFileSync(`/proc/${first.p.pid}/cmdline`, "utf8");
    expect(cmdline).toContain("--database-url-file");
    expect(cmdline).not.toContain(secret);
    expect(await first.p.stop("SIGTERM")).toBe(0);

    const second = await startCollector(urlFile);
    const read = await req(second.url, "/svc/metrics/gauges/cpu/raw?order=asc");
    expect(((await read.json()) as { value: number }[]).map((p) => p.value)).toEqual([0.5, 0.75]);
    const triggers = (await (await req(second.url, "/svc/alerts/triggers")).json()) as { id: string; name: string }[];
    expect(triggers.map((t) => [t.id, t.name])).toEqual([["disk-full", "Disk full"]]);
    const feed = await req(second.url, "/svc/inventory/entity/f;edge-17");
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as { properties?: unknown }).properties).toEqual({ os: "linux" });
    expect(await second.p.stop("SIGTERM")).toBe(0);

    const log = [...first.p.lines, ...second.p.lines].join("\n");
    expect(log).toContain(`database=postgres://postgres@127.0.0.1`);
    expect(log).not.toContain(secret);
  });

  it("refuses the URL as a flag, and stops with one line when the database cannot be reached", async () => {
    const flag = Running.start("collector", ["--data-dir", cluster.folder(), "--http-port", "0", "--mqtt-port", "0", "--database-url", cluster.db.url]);
    cluster.procs.push(flag);
    expect(await flag.exited).toBe(2);
    expect(flag.lines.join("\n")).toMatch(/--database-url is not accepted on the command line.*OUTPOST_DATABASE_URL.*--database-url-file/);

    const port = await freePort();
    const down = Running.start("collector", ["--data-dir", cluster.folder(), "--http-port", "0", "--mqtt-port", "0"], {
      env: { OUTPOST_DATABASE_URL: `postgres://outpost:${PASSWORD}@127.0.0.1:${port}/outpost` },
    });
    cluster.procs.push(down);
    expect(await down.exited).toBe(2);
    const out = down.lines.filter((l) => l.trim() !== "");
    expect(out.join("\n")).toMatch(new RegExp(`--database-url: cannot use the database at postgres://outpost@127\\.0\\.0\\.1:${port}/outpost`));
    expect(out.join("\n")).not.toContain(PASSWORD);

    const check = await run("collector", ["--check-config"], { env: { OUTPOST_DATABASE_URL: `postgres://outpost:${PASSWORD}@db/outpost` } });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/database-url +\(set\) +\[env\]/);
    expect(check.stdout).not.toContain(PASSWORD);

    const wrong = Running.start("collector", ["--data-dir", cluster.folder(), "--http-port", "0", "--mqtt-port", "0"], { env: { OUTPOST_DATABASE_URL: "mysql://x@y/z" } });
    cluster.procs.push(wrong);
    expect(await wrong.exited).toBe(2);
    expect(wrong.lines.join("\n")).toContain("--database-url must be a postgres:// or postgresql:// URL");
  });
});
