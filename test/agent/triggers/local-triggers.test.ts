import { describe, expect, test } from "vitest";
import { LocalTriggers } from "../../../agent/triggers/local-triggers.ts";
import { dataIdsOf, diffTriggers } from "../../../agent/triggers/trigger-set.ts";
import type { Alert, Event, FullTrigger } from "../../../src/alerts/model.ts";
import { createLogger } from "../../../src/log/logger.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import { STALE_NAN } from "../../../src/prometheus/staleness.ts";

const FEED = "edge-1";

const trigger = (id: string, dataId: string, extra: Record<string, unknown> = {}, conditions?: unknown[]) => ({
  trigger: { id, name: id, enabled: true, source: FEED, ...extra },
  conditions: conditions ?? [{ type: "THRESHOLD", dataId, operator: "GT", threshold: 50 }],
});

function setup() {
  const fired: (Alert | Event)[] = [];
  let saved: string | undefined;
  let clock = 1_700_000_000_000;
  const make = () =>
    new LocalTriggers({
      tenant: "acme",
      feed: FEED,
      fired: (items) => fired.push(...items),
      store: { load: () => saved, save: (t) => (saved = t) },
      log: createLogger("silent"),
      now: () => clock,
    });
  const gauge = (id: string, value: number): MetricWrite[] => {
    clock += 5000;
    return [{ type: "gauge", id, points: [{ timestamp: clock, value }] }];
  };
  return { fired, make, gauge, saved: () => saved };
}

describe("local triggers", () => {
  test("a pushed trigger fires on the agent's own points, with its evaluations and the feed as source", async () => {
    const s = setup();
    const local = s.make();
    await local.apply({ digest: "d1", triggers: [trigger("hot", `${FEED}:temp`)] });
    expect(local.triggerCount).toBe(1);
    local.onWrites(s.gauge(`${FEED}:temp`, 20));
    local.onWrites(s.gauge(`${FEED}:other`, 99));
    expect(s.fired).toEqual([]);
    local.onWrites(s.gauge(`${FEED}:temp`, 90));
    expect(s.fired).toHaveLength(1);
    const alert = s.fired[0] as Alert;
    expect(alert).toMatchObject({ eventType: "ALERT", tenantId: "acme", status: "OPEN", dataSource: FEED, trigger: { id: "hot" } });
    expect(alert.evalSets?.[0]?.[0]).toMatchObject({ type: "THRESHOLD", value: 90, condition: { dataId: `${FEED}:temp`, threshold: 50 } });
    local.close();
  });

  test("a staleness marker is no data: it neither fires nor breaks a dampening run", async () => {
    const s = setup();
    const local = s.make();
    const strict2 = { ...trigger("two", `${FEED}:x`), dampenings: [{ triggerMode: "FIRING", type: "STRICT", evalTrueSetting: 2 }] };
    await local.apply({ digest: "a", triggers: [strict2] });
    local.onWrites(s.gauge(`${FEED}:x`, 60));
    local.onWrites(s.gauge(`${FEED}:x`, STALE_NAN));
    expect(s.fired).toEqual([]);
    local.onWrites(s.gauge(`${FEED}:x`, 61));
    expect(s.fired.map((f) => f.trigger?.id)).toEqual(["two"]);
    local.close();
  });

  test("auto-resolve on the agent sends the alert again, resolved", async () => {
    const s = setup();
    const local = s.make();
    const full = trigger("r", `${FEED}:load`, { autoResolve: true, autoResolveAlerts: true }, [
      { type: "THRESHOLD", dataId: `${FEED}:load`, operator: "GT", threshold: 50 },
      { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: `${FEED}:load`, operator: "LT", threshold: 10 },
    ]);
    await local.apply({ digest: "d", triggers: [full] });
    local.onWrites(s.gauge(`${FEED}:load`, 80));
    local.onWrites(s.gauge(`${FEED}:load`, 5));
    const [opened, resolved] = s.fired as Alert[];
    expect(opened?.status).toBe("OPEN");
    expect(resolved).toMatchObject({ id: opened?.id, status: "RESOLVED" });
    expect(resolved?.lifecycle.map((l) => [l.status, l.user])).toEqual([
      ["OPEN", "system"],
      ["RESOLVED", "AutoResolve"],
    ]);
    local.close();
  });

  test("an unchanged trigger keeps its state when the set is pushed again; a removed one stops", async () => {
    const s = setup();
    const local = s.make();
    const strict2 = { ...trigger("two", `${FEED}:x`), dampenings: [{ triggerMode: "FIRING", type: "STRICT", evalTrueSetting: 2 }] };
    await local.apply({ digest: "a", triggers: [strict2, trigger("gone", `${FEED}:y`)] });
    local.onWrites(s.gauge(`${FEED}:x`, 60));
    // Same definitions under another digest (e.g. after a reconnect): dampening progress is kept.
    await local.apply({ digest: "b", triggers: [strict2] });
    local.onWrites(s.gauge(`${FEED}:x`, 61));
    expect(s.fired.map((f) => f.trigger?.id)).toEqual(["two"]);
    local.onWrites(s.gauge(`${FEED}:y`, 99));
    expect(s.fired).toHaveLength(1);
    local.close();
  });

  test("invalid pushed triggers are skipped, the others kept; the agent's tenant is used", async () => {
    const s = setup();
    const local = s.make();
    await local.apply({ digest: "x", triggers: [{ trigger: { name: "no conditions shape" }, conditions: "nope" }, { ...trigger("ok", `${FEED}:z`), trigger: { ...trigger("ok", "").trigger, tenantId: "other" } }] });
    expect(local.triggerCount).toBe(1);
    local.onWrites(s.gauge(`${FEED}:z`, 70));
    expect(s.fired[0]?.tenantId).toBe("acme");
    local.close();
  });

  test("the applied set is saved and evaluated again after a restart", async () => {
    const s = setup();
    const first = s.make();
    await first.apply({ digest: "d1", triggers: [trigger("hot", `${FEED}:temp`)] });
    first.close();
    const second = s.make();
    await second.restore();
    expect(second.triggerCount).toBe(1);
    second.onWrites(s.gauge(`${FEED}:temp`, 99));
    expect(s.fired).toHaveLength(1);
    second.close();
  });

  test("no engine is needed while there is nothing to evaluate", async () => {
    const s = setup();
    const local = s.make();
    await local.apply({ digest: "empty", triggers: [] });
    local.onWrites(s.gauge(`${FEED}:temp`, 99));
    expect(s.fired).toEqual([]);
    expect(JSON.parse(s.saved()!)).toEqual({ digest: "empty", triggers: [] });
  });
});

describe("trigger sets", () => {
  const full = (id: string, conditions: unknown[]) => ({ trigger: { id }, conditions, dampenings: [] }) as unknown as FullTrigger;

  test("the dataIds read, including the second of a comparison", () => {
    expect([...dataIdsOf([full("a", [{ dataId: "x" }, { dataId: "y", data2Id: "z" }]), full("b", [{ dataId: "x" }])])].sort()).toEqual(["x", "y", "z"]);
  });

  test("what to load and remove", () => {
    const a = full("a", [{ dataId: "x" }]);
    const b = full("b", [{ dataId: "y" }]);
    const loaded = new Map([
      ["a", JSON.stringify(a)],
      ["c", "{}"],
    ]);
    const d = diffTriggers(loaded, [a, b]);
    expect(d.load.map((t) => t.trigger.id)).toEqual(["b"]);
    expect(d.remove).toEqual(["c"]);
  });
});
