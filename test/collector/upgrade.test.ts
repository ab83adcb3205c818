/**
 * A newer collector and agent open the databases of release 0.1.0 (test/fixtures/release-0.1.0,
 * made by that release through its own interfaces) and upgrade them in place: every point,
 * alert, trigger, entity and subscription is still there, and the schema versions are recorded.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERTS_DB } from "../../collector/store/alerts/schema.ts";
import { COLLECTOR_DATABASES } from "../../collector/store/databases.ts";
import { latestVersion, schemaVersion } from "../../src/sqlite/migrations.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { portOf, Running, run } from "../helpers/program.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/release-0.1.0");
const T0 = 1_767_225_600_000;
const dir = mkdtempSync(join(tmpdir(), "outpost-upgrade-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database file as release 0.1.0 left it, from its SQL dump. */
function restoreDump(dump: string, path: string): void {
  const db = new Database(path, { create: true });
  db.exec(readFileSync(join(FIXTURES, dump), "utf8"));
  db.close();
}

function versionOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return schemaVersion(db);
  } finally {
    db.close();
  }
}

function previousData(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  // Databases that release did not have yet (fleet.db, releases.db) are made new, at their latest version.
  for (const s of COLLECTOR_DATABASES) if (existsSync(join(FIXTURES, s.name.replace(".db", ".sql")))) restoreDump(s.name.replace(".db", ".sql"), join(d, s.name));
  return d;
}

describe("upgrading the collector's databases of release 0.1.0", () => {
  let collector: Running;
  let url = "";
  const data = previousData("collector");
  const get = async (path: string) => {
    const r = await fetch(url + path, { headers: { "Svc-Tenant": "acme" } });
    expect(r.status, path).toBe(200);
    return r.json();
  };

  beforeAll(async () => {
    expect(versionOf(join(data, ALERTS_DB.name))).toBe(0);
    collector = Running.start("collector", ["--data-dir", data, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0", "--default-retention", "36500", "--self-metrics-interval", "0"]);
    url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
    await collector.waitForLine(/collector ready/);
  });
  afterAll(() => collector.stop("SIGTERM"));

  it("records each database's schema version, saying so in the log", () => {
    for (const s of COLLECTOR_DATABASES) expect(versionOf(join(data, s.name)), s.name).toBe(latestVersion(s));
    expect(collector.lines.some((l) => /upgraded alerts\.db to schema 1/.test(l))).toBe(true);
    // metrics.db had version 1: the step to 2 changed its chunks table in place.
    expect(collector.lines.some((l) => /upgraded metrics\.db to schema 2 step=chunks carry their expiry time/.test(l))).toBe(true);
    // The step to 3 adds the compressed chunk format; the chunks of release 0.1.0 stay as they are, read as format 0.
    expect(collector.lines.some((l) => /upgraded metrics\.db to schema 3 step=chunk format 1/.test(l))).toBe(true);
  });

  it("keeps every point: those in chunks and those still in the ingest log", async () => {
    const temp = (await get(`/svc/metrics/gauges/temp/raw?start=${T0}&end=${T0 + 200 * 60_000}&order=ASC&limit=1000`)) as { timestamp: number; value: number }[];
    expect(temp).toHaveLength(180);
    expect(temp[0]).toEqual({ timestamp: T0, value: 20 });
    expect(temp[179]).toEqual({ timestamp: T0 + 179 * 60_000, value: 20 });
    const requests = (await get(`/svc/metrics/counters/requests/raw?start=${T0}&end=${T0 + 200 * 60_000}&limit=1000`)) as unknown[];
    expect(requests).toHaveLength(61);
    expect(await get(`/svc/metrics/gauges/temp`)).toMatchObject({ id: "temp", tags: { room: "a", unit: "C" } });
    expect(await get(`/svc/metrics/availability/web/raw?start=${T0}&end=${T0 + 120_000}&order=ASC`)).toEqual([
      { timestamp: T0, value: "up" },
      { timestamp: T0 + 60_000, value: "down" },
    ]);
    expect(await get(`/svc/metrics/strings/version/raw?start=${T0}&end=${T0 + 1}`)).toEqual([{ timestamp: T0, value: "1.2.3" }]);
  });

  it("computes the rollup tiers of the old chunks in the background, and long ranges read them", async () => {
    expect(collector.lines.some((l) => /upgraded metrics\.db to schema 4 step=rollup tiers/.test(l))).toBe(true);
    // temp's first two hours are in a chunk of release 0.1.0's layout (format 0); its last hour is in the log.
    // The open replays that hour, so the first window waits 30 s, as after any restart, for senders to come back.
    const res = await waitFor(
      "the old chunks rolled up",
      async () => {
        const r = await fetch(`${url}/svc/metrics/gauges/temp/stats?start=${T0}&end=${T0 + 2 * 3_600_000}&bucketDuration=1h`, { headers: { "Svc-Tenant": "acme" } });
        return r.headers.get("Outpost-Resolution") === "1h" ? r : undefined;
      },
      60_000,
    );
    // The raw points' numbers.
    const raw = (await get(`/svc/metrics/gauges/temp/raw?start=${T0}&end=${T0 + 2 * 3_600_000}&order=ASC&limit=1000`)) as { timestamp: number; value: number }[];
    const hour = (h: number) => raw.filter((p) => p.timestamp >= T0 + h * 3_600_000 && p.timestamp < T0 + (h + 1) * 3_600_000).map((p) => p.value);
    expect(await res.json()).toMatchObject(
      [0, 1].map((h) => ({ start: T0 + h * 3_600_000, samples: 60, min: Math.min(...hour(h)), max: Math.max(...hour(h)), sum: hour(h).reduce((a, b) => a + b, 0) })),
    );
  }, 90_000);

  it("keeps the triggers and alerts, the inventory and the forecast subscriptions", async () => {
    expect(await get("/svc/alerts/triggers/temp-high")).toMatchObject({ id: "temp-high", name: "temperature high", tags: { room: "a" } });
    const alerts = (await get("/svc/alerts?triggerIds=temp-high&thin=true")) as unknown[];
    const fixtureAlerts = readFileSync(join(FIXTURES, "alerts.sql"), "utf8").match(/INSERT INTO alerts /g)?.length;
    expect(alerts).toHaveLength(fixtureAlerts!);
    expect(await get("/svc/inventory/entity/f;edge-1/r;host")).toMatchObject({ id: "host", name: "the host" });
    expect(await get("/svc/datamining/metrics")).toEqual([expect.objectContaining({ metricId: "temp" })]);
  });
});

describe("databases of a newer collector", () => {
  it("are refused at start in one line, with exit code 2, and left as they are", async () => {
    const data = previousData("newer");
    const db = new Database(join(data, "metrics.db"));
    db.exec("PRAGMA user_version = 99");
    db.close();
    const r = await run("collector", ["--data-dir", data, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      "error: metrics.db has schema version 99, newer than this program knows (5): it was written by a newer Outpost; run that version, or restore a backup made by this one",
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(versionOf(join(data, "metrics.db"))).toBe(99);
  });
});

describe("the agent's buffer of release 0.1.0", () => {
  it("is upgraded and its points are delivered by the new agent", async () => {
    const agentDir = join(dir, "agent");
    mkdirSync(agentDir, { recursive: true });
    restoreDump("buffer.sql", join(agentDir, "buffer.db"));
    const mqtt = await freePort();
    const collector = Running.start("collector", ["--data-dir", join(dir, "fresh"), "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-host", "127.0.0.1", "--mqtt-port", String(mqtt), "--default-retention", "36500", "--self-metrics-interval", "0"]);
    const agent = Running.start("agent", ["--tenant", "acme", "--feed", "edge-1", "--data-dir", agentDir, "--broker", `mqtt://127.0.0.1:${mqtt}`, "--listen", "", "--no-host-metrics", "--no-inventory", "--interval", "1h"]);
    try {
      const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
      const points = await waitFor("the buffered points at the collector", async () => {
        const r = await fetch(`${url}/svc/metrics/gauges/buffered/raw?start=${T0}&end=${T0 + 60_000}&limit=100`, { headers: { "Svc-Tenant": "acme" } });
        const b = r.status === 200 ? ((await r.json()) as unknown[]) : [];
        return b.length === 50 ? b : undefined;
      });
      expect(points).toHaveLength(50);
      expect(agent.lines.join("\n")).toMatch(/agent started tenant=acme feed=edge-1 session=2 bufferedPoints=50/);
    } finally {
      await agent.stop("SIGTERM");
      await collector.stop("SIGTERM");
    }
  });
});
