/**
 * The fleet store on both backends (SQLite fleet.db and PostgreSQL): feeds bound to the first
 * identity that claims them, conflicts, moves audited, numbered configuration revisions and
 * what agents report, the same answers from each, kept across a reopen.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresFleetStore } from "../../../collector/store/fleet/postgres.ts";
import { SqliteFleetStore } from "../../../collector/store/fleet/sqlite.ts";
import type { Claim, FeedIdentityView, FleetStore, TenantFleet } from "../../../collector/store/fleet/types.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { fileTestDatabase } from "../../helpers/postgres.ts";

const log = createLogger("silent");
const dirs: string[] = [];
const opened: FleetStore[] = [];
const pg = fileTestDatabase({
  truncate: ["fleet_identities", "fleet_conflicts", "fleet_identity_log", "fleet_config_revisions", "fleet_config_status"],
  async cleanup() {
    for (const s of opened.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  },
});

const backends: { name: string; place(): () => FleetStore }[] = [
  {
    name: "SQLite",
    place() {
      const d = mkdtempSync(join(tmpdir(), "outpost-fleet-store-"));
      dirs.push(d);
      return () => new SqliteFleetStore({ dataDir: d, log });
    },
  },
  { name: "PostgreSQL", place: () => () => new PostgresFleetStore({ sql: pg.sql }) },
];

const A = "a".repeat(32);
const B = "b".repeat(32);
const C = "c".repeat(32);
const claim = (instance: string, at: number, o: Partial<Claim> = {}): Claim => ({ tenant: "acme", feed: "web-1", instance, publicKey: instance.slice(0, 8), host: `host-${instance[0]}`, tags: { role: "edge" }, at, ...o });

describe.each(backends)("$name fleet store", ({ place }) => {
  const open = (make: () => FleetStore) => {
    const s = make();
    opened.push(s);
    return s;
  };

  it("binds a feed to the first identity that claims it and refuses the others, recording each refusal", async () => {
    const s = open(place());
    const first = await s.claim(claim(A, 1000));
    expect(first).toEqual({ granted: true, first: true, holder: { tenant: "acme", feed: "web-1", instance: A, publicKey: "aaaaaaaa", host: "host-a", tags: { role: "edge" }, since: 1000, seenAt: 1000 } });
    const again = await s.claim(claim(A, 2000, { host: "renamed", tags: { role: "core" } }));
    expect(again).toMatchObject({ granted: true, first: false, holder: { instance: A, host: "renamed", tags: { role: "core" }, since: 1000, seenAt: 2000 } });
    const refused = await s.claim(claim(B, 3000));
    expect(refused).toMatchObject({ granted: false, holder: { instance: A, since: 1000 }, conflict: { instance: B, host: "host-b", firstAt: 3000, lastAt: 3000, attempts: 1 } });
    const twice = await s.claim(claim(B, 4000));
    expect(twice).toMatchObject({ granted: false, conflict: { firstAt: 3000, lastAt: 4000, attempts: 2 } });
    // Another tenant's feed of the same name is another feed.
    expect(await s.claim(claim(B, 5000, { tenant: "other" }))).toMatchObject({ granted: true, first: true });
    expect((await s.identity("acme", "web-1"))?.instance).toBe(A);
    expect((await s.conflicts("acme")).map((c) => c.instance)).toEqual([B]);
    expect(await s.conflicts("other")).toEqual([]);
    expect(await s.identityView("acme", "web-1")).toEqual({
      holder: { tenant: "acme", feed: "web-1", instance: A, publicKey: "aaaaaaaa", host: "renamed", tags: { role: "core" }, since: 1000, seenAt: 2000 },
      conflicts: [{ tenant: "acme", feed: "web-1", instance: B, publicKey: "bbbbbbbb", host: "host-b", firstAt: 3000, lastAt: 4000, attempts: 2 }],
      changes: [{ tenant: "acme", feed: "web-1", at: 1000, author: "agent", action: "claimed", to: A }],
    });
    expect(await s.identityView("acme", "never-claimed")).toEqual({ conflicts: [], changes: [] });
  });

  it("shows a feed's holder and its claim together to a view read while the claim commits", async () => {
    const s = open(place());
    // Each feed is claimed while 3 readers loop over views of it, 8 feeds at a time; no view may
    // show the claim's change without its holder, or the holder without the change. Three
    // separate reads on pooled PostgreSQL connections showed "- claimed" in every run of this.
    const feeds = Array.from({ length: 40 }, (_, i) => `race-${i}`);
    const views: FeedIdentityView[][] = [];
    for (let round = 0; round < feeds.length; round += 8) {
      const batch = feeds.slice(round, round + 8).map(async (feed, i) => {
        let done = false;
        const readers = Array.from({ length: 3 }, async () => {
          const seen = [await s.identityView("acme", feed)];
          while (!done) seen.push(await s.identityView("acme", feed));
          return seen;
        });
        await s.identityView("acme", feed);
        await s.claim(claim(A, 1000 + i, { feed }));
        done = true;
        return [...(await Promise.all(readers)).flat(), await s.identityView("acme", feed)];
      });
      views.push(...(await Promise.all(batch)));
    }
    for (const v of views.flat()) expect(["- ", `${A} claimed`]).toContain(`${v.holder?.instance ?? "-"} ${v.changes.map((c) => c.action).join()}`);
    // The view read after each claim resolved shows it.
    for (const perFeed of views) expect(perFeed.at(-1)?.holder?.instance).toBe(A);
  });

  it("gives a feed to exactly one of many identities claiming it at once", async () => {
    const s = open(place());
    const ids = Array.from({ length: 12 }, (_, i) => i.toString(16).padStart(32, "0"));
    const outcomes = await Promise.all(ids.map((id, i) => s.claim(claim(id, 100 + i))));
    const granted = outcomes.filter((o) => o.granted);
    expect(granted.length).toBe(1);
    expect(new Set(outcomes.map((o) => o.holder.instance)).size).toBe(1);
    expect((await s.conflicts("acme", "web-1")).length).toBe(11);
  });

  it("shows a move whole to a tenant's snapshot read while the move commits", async () => {
    const s = open(place());
    const feeds = Array.from({ length: 8 }, (_, i) => `move-${i}`);
    for (const feed of feeds) {
      await s.claim(claim(A, 1000, { feed }));
      await s.claim(claim(B, 2000, { feed }));
    }
    // Each feed moves to B (which resolves B's conflict) while 3 readers loop over the tenant's
    // snapshot: B holds a feed or is refused on it, never both and never neither.
    const seen: TenantFleet[] = [];
    await Promise.all(
      feeds.map(async (feed) => {
        let done = false;
        const readers = Array.from({ length: 3 }, async () => {
          seen.push(await s.tenantFleet("acme", 10));
          while (!done) seen.push(await s.tenantFleet("acme", 10));
        });
        await s.moveFeed("acme", feed, B, "alice", 3000);
        done = true;
        await Promise.all(readers);
      }),
    );
    for (const f of seen) {
      for (const feed of feeds) {
        const holder = f.identities.find((i) => i.feed === feed)?.instance;
        const refused = f.conflicts.some((c) => c.feed === feed && c.instance === B);
        expect(["A refused B", "B"]).toContain(`${holder === A ? "A" : holder === B ? "B" : "-"}${refused ? " refused B" : ""}`);
      }
    }
    expect((await s.tenantFleet("acme", 10)).identities.map((i) => i.instance)).toEqual(feeds.map(() => B));
  });

  it("moves a feed only when told, with its author and time, and releases it for the next claimer", async () => {
    const s = open(place());
    await s.claim(claim(A, 1000));
    await s.claim(claim(B, 2000));
    await s.claim(claim(C, 2500));
    expect(await s.moveFeed("acme", "web-1", B, "alice", 3000)).toEqual({ from: A });
    expect(await s.identity("acme", "web-1")).toMatchObject({ instance: B, host: "host-b", publicKey: "bbbbbbbb", since: 3000, tags: { role: "edge" } });
    // The new holder's conflict is resolved; the others stay.
    expect((await s.conflicts("acme", "web-1")).map((c) => c.instance)).toEqual([C]);
    expect(await s.claim(claim(A, 4000))).toMatchObject({ granted: false, holder: { instance: B } });
    expect(await s.dismissConflicts("acme", "web-1", C)).toBe(1);
    expect((await s.conflicts("acme", "web-1")).map((c) => c.instance)).toEqual([A]);
    expect(await s.moveFeed("acme", "web-1", undefined, "bob", 5000)).toEqual({ from: B });
    expect(await s.identity("acme", "web-1")).toBeUndefined();
    expect(await s.claim(claim(C, 6000))).toMatchObject({ granted: true, first: true });
    expect((await s.identityView("acme", "web-1")).changes.map((c) => [c.action, c.author, c.from ?? "-", c.to ?? "-", c.at])).toEqual([
      ["claimed", "agent", "-", A, 1000],
      ["moved", "alice", A, B, 3000],
      ["released", "bob", B, "-", 5000],
      ["claimed", "agent", "-", C, 6000],
    ]);
    // After another release, an identity refused until then claims the feed: no longer a conflict.
    expect((await s.conflicts("acme", "web-1")).map((c) => c.instance)).toEqual([A]);
    await s.moveFeed("acme", "web-1", undefined, "bob", 6500);
    expect(await s.claim(claim(A, 6600))).toMatchObject({ granted: true, first: true });
    expect(await s.conflicts("acme", "web-1")).toEqual([]);
    // A move to an identity never seen takes effect all the same; its key comes with its first claim.
    await s.moveFeed("acme", "web-2", A, "alice", 7000);
    expect(await s.identity("acme", "web-2")).toEqual({ tenant: "acme", feed: "web-2", instance: A, tags: {}, since: 7000, seenAt: 7000 });
  });

  it("numbers configuration revisions per tenant and keeps what agents report, across a reopen", async () => {
    const make = place();
    const s = open(make);
    const r1 = await s.addRevision({ tenant: "acme", target: { tags: { role: "edge" } }, config: { "log-level": "debug" }, author: "alice", at: 10, comment: "debug the edge" });
    const r2 = await s.addRevision({ tenant: "acme", target: { feed: "web-1" }, config: { "host-interval": "30s" }, author: "bob", at: 20 });
    const other = await s.addRevision({ tenant: "other", target: { all: true }, config: {}, author: "carol", at: 30 });
    expect([r1.revision, r2.revision, other.revision]).toEqual([1, 2, 1]);
    await s.setConfigStatus({ tenant: "acme", feed: "web-1", instance: A, revision: 2, state: "failed", running: 1, error: "StatsD cannot listen", at: 40 });
    await s.setConfigStatus({ tenant: "acme", feed: "web-1", instance: A, revision: 2, state: "applied", running: 2, kept: ["log-level"], at: 50 });
    await s.setConfigStatus({ tenant: "acme", feed: "web-2", revision: 1, state: "applied", running: 1, at: 60 });
    await s.close();
    opened.pop();

    const again = open(make);
    expect(await again.revisions("acme", 10)).toEqual([
      { tenant: "acme", revision: 2, target: { feed: "web-1" }, config: { "host-interval": "30s" }, author: "bob", at: 20 },
      { tenant: "acme", revision: 1, target: { tags: { role: "edge" } }, config: { "log-level": "debug" }, author: "alice", at: 10, comment: "debug the edge" },
    ]);
    expect(await again.revisions("acme", 1)).toHaveLength(1);
    expect(await again.revision("other", 1)).toMatchObject({ target: { all: true }, author: "carol" });
    expect(await again.revision("acme", 3)).toBeUndefined();
    expect(await again.configStatuses("acme")).toEqual([
      { tenant: "acme", feed: "web-1", instance: A, revision: 2, state: "applied", running: 2, kept: ["log-level"], at: 50 },
      { tenant: "acme", feed: "web-2", revision: 1, state: "applied", running: 1, at: 60 },
    ]);
    expect(await again.configStatuses("other")).toEqual([]);
    // The snapshot holds what the single reads answer.
    expect(await again.tenantFleet("acme", 1)).toEqual({ identities: await again.identities("acme"), conflicts: await again.conflicts("acme"), revisions: await again.revisions("acme", 1), configStatuses: await again.configStatuses("acme") });
    expect((await again.addRevision({ tenant: "acme", target: { all: true }, config: {}, author: "x", at: 70 })).revision).toBe(3);
  });
});
