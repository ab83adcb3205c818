import { describe, expect, it } from "vitest";
import { createAlertsEngine, createManualClock, type EngineEffect } from "../../src/alerts/index.ts";
import { fullTrigger, TENANT, testEngine, threshold } from "./helpers.ts";

describe("what a trigger fires", () => {
  it("an alert carries the trigger's severity, context and tags, id <triggerId>-<ctime>-<unique>, dataId = trigger id, an OPEN lifecycle by system", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: {
          id: "cpu-high",
          name: "CPU high",
          description: "CPU above 90",
          enabled: true,
          severity: "CRITICAL",
          context: { runbook: "http://wiki/cpu" },
          tags: { team: "ops" },
        },
        conditions: [threshold("cpu", "GT", 90)],
      }),
    );
    const now = h.clock.now();
    h.engine.sendData([h.datum("cpu", 95)]);
    const [a] = h.alerts();
    expect(a).toMatchObject({
      eventType: "ALERT",
      tenantId: TENANT,
      id: `cpu-high-${now}-u1`,
      ctime: now,
      dataId: "cpu-high",
      category: "ALERT",
      text: "CPU above 90",
      severity: "CRITICAL",
      status: "OPEN",
      context: { runbook: "http://wiki/cpu" },
      tags: { team: "ops" },
      lifecycle: [{ status: "OPEN", user: "system", stime: now }],
      trigger: { id: "cpu-high", name: "CPU high" },
    });
    expect(a!.evalSets).toHaveLength(1);
    expect(a!.evalSets![0]![0]).toEqual({
      type: "THRESHOLD",
      value: 95,
      evalTimestamp: now,
      dataTimestamp: expect.any(Number),
      condition: expect.objectContaining({ dataId: "cpu", conditionId: `${TENANT}-cpu-high-FIRING-1-1` }),
      displayString: "Threshold: cpu[95.00] GT 90.00",
    });
  });

  it("severity defaults to MEDIUM; text falls back from eventText to description to name", () => {
    const h = testEngine();
    const load = (id: string, extra: Record<string, unknown>) =>
      h.engine.loadTrigger(fullTrigger({ trigger: { id, enabled: true, ...extra }, conditions: [threshold(`d-${id}`, "GT", 0)] }));
    load("a", { name: "Name A", description: "Desc A", eventText: "Text A" });
    load("b", { name: "Name B", description: "Desc B" });
    load("c", { name: "Name C" });
    h.engine.sendData([h.datum("d-a", 1), h.datum("d-b", 1), h.datum("d-c", 1)]);
    const byTrigger = Object.fromEntries(h.alerts().map((a) => [a.dataId, a]));
    expect([byTrigger.a!.text, byTrigger.b!.text, byTrigger.c!.text]).toEqual(["Text A", "Desc B", "Name C"]);
    expect(byTrigger.a!.severity).toBe("MEDIUM");
  });

  it("eventType EVENT fires an event: category from eventCategory, else TRIGGER; no status or lifecycle", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "e1", name: "E1", enabled: true, eventType: "EVENT" }, conditions: [threshold("x", "GT", 0)] }),
    );
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "e2", name: "E2", enabled: true, eventType: "EVENT", eventCategory: "DEPLOY" },
        conditions: [threshold("x", "GT", 0)],
      }),
    );
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts()).toHaveLength(0);
    const evs = h.events();
    expect(evs.map((e) => [e.dataId, e.eventType, e.category])).toEqual([
      ["e1", "EVENT", "TRIGGER"],
      ["e2", "EVENT", "DEPLOY"],
    ]);
    expect(evs[0]).not.toHaveProperty("status");
    expect(evs[0]).not.toHaveProperty("lifecycle");
    expect(evs[0]!.evalSets).toHaveLength(1);
  });
});

describe("which data a trigger evaluates", () => {
  it("only enabled triggers evaluate", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "off" }, conditions: [threshold("x", "GT", 0)] }));
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.setEnabled(TENANT, "off", true);
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts()).toHaveLength(1);
    h.engine.setEnabled(TENANT, "off", false);
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts()).toHaveLength(1);
  });

  it("a trigger with a source evaluates only data of that source; one without, only data without", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "src", enabled: true, source: "host-a" }, conditions: [threshold("x", "GT", 0)] }));
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "nosrc", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
    h.engine.sendData([{ ...h.datum("x", 1), source: "host-b" }]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([{ ...h.datum("x", 1), source: "host-a" }]);
    expect(h.alerts().map((a) => a.dataId)).toEqual(["src"]);
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts().map((a) => a.dataId)).toEqual(["src", "nosrc"]);
    expect(h.alerts()[0]!.dataSource).toBe("host-a");
  });

  it("tenants are separate", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "t", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
    h.engine.sendData([{ ...h.datum("x", 1), tenantId: "someone-else" }]);
    expect(h.alerts()).toHaveLength(0);
  });

  it("group triggers are definitions and never evaluate", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "g", type: "GROUP", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
    h.engine.sendData([h.datum("x", 1)]);
    expect(h.alerts()).toHaveLength(0);
    expect(h.engine.stats().activeTriggers).toBe(0);
  });
});

describe("firingMatch and autoResolveMatch", () => {
  const twoConditions = (match: string, strict = 1) =>
    fullTrigger({
      trigger: { id: "two", enabled: true, firingMatch: match },
      conditions: [threshold("a", "GT", 5), threshold("b", "GT", 5)],
      dampenings: [{ type: "STRICT", evalTrueSetting: strict }],
    });

  it("ALL waits until every condition has been evaluated, then needs all latest evaluations true", () => {
    const h = testEngine();
    h.engine.loadTrigger(twoConditions("ALL"));
    h.engine.sendData([h.datum("a", 10)]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([h.datum("b", 1)]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([h.datum("b", 10)]); // a's latest (10) still holds
    expect(h.alerts()).toHaveLength(1);
    expect(h.alerts()[0]!.evalSets![0]!.map((e) => e.type === "THRESHOLD" && e.value)).toEqual([10, 10]);
  });

  it("ANY fires on a single true condition", () => {
    const h = testEngine();
    h.engine.loadTrigger(twoConditions("ANY"));
    h.engine.sendData([h.datum("b", 10)]);
    expect(h.alerts()).toHaveLength(1);
  });

  it("data of one batch for different dataIds make one evaluation cycle: one dampening step", () => {
    const h = testEngine();
    h.engine.loadTrigger(twoConditions("ANY", 2));
    h.engine.sendData([h.datum("a", 10), h.datum("b", 10)]);
    expect(h.alerts()).toHaveLength(0); // one true step of STRICT(2)
    h.engine.sendData([h.datum("a", 10)]);
    expect(h.alerts()).toHaveLength(1);
  });

  it("autoResolveMatch ANY resolves on one of several auto-resolve conditions", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "ar", enabled: true, autoResolve: true, autoResolveMatch: "ANY" },
        conditions: [threshold("a", "GT", 5), threshold("a", "LT", 2, "AUTORESOLVE"), threshold("b", "LT", 2, "AUTORESOLVE")],
      }),
    );
    h.engine.sendData([h.datum("a", 10)]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("AUTORESOLVE");
    h.engine.sendData([h.datum("b", 1)]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
  });
});

describe("modes and auto-* flags", () => {
  const autoResolving = (extra: Record<string, unknown> = {}) =>
    fullTrigger({
      trigger: { id: "ar", enabled: true, autoResolve: true, autoResolveAlerts: true, ...extra },
      conditions: [threshold("temp", "GT", 80), threshold("temp", "LT", 60, "AUTORESOLVE")],
      dampenings: [{ type: "STRICT", triggerMode: "AUTORESOLVE", evalTrueSetting: 2 }],
    });

  it("autoResolve: firing moves the trigger to AUTORESOLVE, where only auto-resolve conditions count", () => {
    const h = testEngine();
    h.engine.loadTrigger(autoResolving());
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
    h.send("temp", [90]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("AUTORESOLVE");
    h.send("temp", [95, 99]); // still hot, but no new alert in AUTORESOLVE mode
    expect(h.alerts()).toHaveLength(1);
    const modes = h.effects.filter((e) => e.kind === "mode");
    expect(modes).toEqual([{ kind: "mode", tenantId: TENANT, triggerId: "ar", mode: "AUTORESOLVE", time: expect.any(Number) }]);
  });

  it("the auto-resolve set, dampened, moves it back to FIRING and resolves its alerts with AutoResolve", () => {
    const h = testEngine();
    h.engine.loadTrigger(autoResolving());
    h.send("temp", [90, 50]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("AUTORESOLVE"); // STRICT(2) in AUTORESOLVE
    h.send("temp", [55]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
    const resolve = h.effects.find((e) => e.kind === "resolveAlerts");
    expect(resolve).toMatchObject({ kind: "resolveAlerts", tenantId: TENANT, triggerId: "ar", user: "AutoResolve" });
    const sets = resolve?.kind === "resolveAlerts" ? resolve.resolvedEvalSets : [];
    expect(sets.map((s) => s.map((e) => e.type === "THRESHOLD" && e.value))).toEqual([[50], [55]]);
    // firing again after coming back
    h.send("temp", [91]);
    expect(h.alerts()).toHaveLength(2);
  });

  it("without autoResolveAlerts the trigger still returns to FIRING, but no alert is resolved", () => {
    const h = testEngine();
    h.engine.loadTrigger(autoResolving({ autoResolveAlerts: false }));
    h.send("temp", [90, 50, 50]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
    expect(h.effects.some((e) => e.kind === "resolveAlerts")).toBe(false);
  });

  it("a user resolving the alerts of an AUTORESOLVE trigger puts it back in FIRING", () => {
    const h = testEngine();
    h.engine.loadTrigger(autoResolving());
    h.send("temp", [90]);
    h.engine.alertsResolved(TENANT, "ar", false); // some alert still open: nothing changes
    expect(h.engine.getMode(TENANT, "ar")).toBe("AUTORESOLVE");
    h.engine.alertsResolved(TENANT, "ar");
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
  });

  it("reloading a trigger puts it back in FIRING mode with fresh dampening", () => {
    const h = testEngine();
    const ft = autoResolving();
    h.engine.loadTrigger(ft);
    h.send("temp", [90]);
    expect(h.engine.getMode(TENANT, "ar")).toBe("AUTORESOLVE");
    h.engine.loadTrigger(ft);
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
    h.send("temp", [90]);
    h.engine.reloadTrigger(TENANT, "ar");
    expect(h.engine.getMode(TENANT, "ar")).toBe("FIRING");
  });

  it("reloading drops partial dampening progress", () => {
    const h = testEngine();
    const ft = fullTrigger({
      trigger: { id: "s2", enabled: true },
      conditions: [threshold("x", "GT", 0)],
      dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
    });
    h.engine.loadTrigger(ft);
    h.send("x", [1]);
    h.engine.loadTrigger(ft);
    h.send("x", [1]);
    expect(h.alerts()).toHaveLength(0);
    h.send("x", [1]);
    expect(h.alerts()).toHaveLength(1);
  });

  it("autoDisable: the trigger disables itself after firing, and says so", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "once", enabled: true, autoDisable: true }, conditions: [threshold("x", "GT", 0)] }));
    h.send("x", [1, 1, 1]);
    expect(h.alerts()).toHaveLength(1);
    expect(h.effects.filter((e) => e.kind === "enablement")).toEqual([
      { kind: "enablement", tenantId: TENANT, triggerId: "once", enabled: false, cause: "autoDisable", time: expect.any(Number) },
    ]);
    expect(h.engine.getTrigger(TENANT, "once")!.trigger.enabled).toBe(false);
  });

  it("autoResolve takes precedence over autoDisable", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "both", enabled: true, autoDisable: true, autoResolve: true },
        conditions: [threshold("x", "GT", 0), threshold("x", "LT", 0, "AUTORESOLVE")],
      }),
    );
    h.send("x", [1]);
    expect(h.engine.getTrigger(TENANT, "both")!.trigger.enabled).toBe(true);
    expect(h.engine.getMode(TENANT, "both")).toBe("AUTORESOLVE");
  });

  it("autoEnable: a disabled trigger is enabled again once its alerts are resolved manually", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "ae", enabled: true, autoDisable: true, autoEnable: true }, conditions: [threshold("x", "GT", 0)] }),
    );
    h.send("x", [1]);
    expect(h.engine.getTrigger(TENANT, "ae")!.trigger.enabled).toBe(false);
    h.engine.alertsResolved(TENANT, "ae");
    expect(h.engine.getTrigger(TENANT, "ae")!.trigger.enabled).toBe(true);
    expect(h.effects.at(-1)).toMatchObject({ kind: "enablement", enabled: true, cause: "autoEnable" });
    h.send("x", [1]);
    expect(h.alerts()).toHaveLength(2);
  });

  it("without autoEnable, resolving does not enable", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "d", enabled: true, autoDisable: true }, conditions: [threshold("x", "GT", 0)] }));
    h.send("x", [1]);
    h.engine.alertsResolved(TENANT, "d");
    expect(h.engine.getTrigger(TENANT, "d")!.trigger.enabled).toBe(false);
  });
});

describe("chaining: fired events feed event conditions", () => {
  it("a trigger's alert is an event with dataId = trigger id that another trigger evaluates in the same call", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "disk-full", enabled: true }, conditions: [threshold("disk", "GT", 95)] }));
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "escalate", enabled: true, severity: "CRITICAL" },
        conditions: [{ type: "EVENT", dataId: "disk-full", expression: "category == 'ALERT'" }],
      }),
    );
    h.engine.sendData([h.datum("disk", 99)]);
    expect(h.alerts().map((a) => a.dataId)).toEqual(["disk-full", "escalate"]);
    const ev = h.alerts()[1]!.evalSets![0]![0]!;
    expect(ev.type === "EVENT" && ev.value.id).toBe(h.alerts()[0]!.id);
  });

  it("an ALL trigger over the events of two triggers fires when the second, separately fired event completes the set (EventsLifecycleITest t02)", () => {
    const h = testEngine();
    for (const app of ["app1", "app2"]) {
      h.engine.loadTrigger(
        fullTrigger({
          trigger: { id: app, enabled: true, eventType: "EVENT" },
          conditions: [{ type: "EVENT", dataId: `${app}.war`, expression: "text == 'DOWN'" }],
        }),
      );
    }
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "combined", enabled: true },
        conditions: [
          { type: "EVENT", dataId: "app1" },
          { type: "EVENT", dataId: "app2" },
        ],
      }),
    );
    const down = (dataId: string, id: string) => ({ eventType: "EVENT" as const, tenantId: TENANT, id, ctime: h.clock.now(), dataId, category: "DEPLOYMENT", text: "DOWN" });
    h.engine.sendEvents([down("app1.war", "e1")]);
    h.clock.advance(1000);
    expect(h.alerts()).toEqual([]);
    h.engine.sendEvents([down("app2.war", "e2")]);
    expect(h.events().map((e) => e.dataId)).toEqual(["app1", "app2"]);
    expect(h.alerts().map((a) => a.dataId)).toEqual(["combined"]);
  });

  it("a cycle of triggers is cut at maxChainDepth", () => {
    const clock = createManualClock(0);
    const effects: EngineEffect[] = [];
    const warnings: string[] = [];
    const engine = createAlertsEngine({
      clock: clock.now,
      scheduler: clock.scheduler,
      listener: (e) => effects.push(e),
      onWarning: (w) => warnings.push(w),
      maxChainDepth: 3,
    });
    engine.loadTrigger(
      fullTrigger({
        trigger: { id: "loop", enabled: true, firingMatch: "ANY" },
        conditions: [threshold("x", "GT", 0), { type: "EVENT", dataId: "loop" }],
      }),
    );
    engine.sendData([{ tenantId: TENANT, id: "x", timestamp: 1, value: 1 }]);
    expect(effects.filter((e) => e.kind === "alert")).toHaveLength(4);
    expect(engine.stats().chainsCut).toBe(1);
    expect(warnings).toHaveLength(1);
  });
});

describe("batches, ordering and the minimum reporting interval", () => {
  const strict2 = () =>
    fullTrigger({
      trigger: { id: "s", enabled: true },
      conditions: [threshold("x", "GT", 5)],
      dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
    });

  it("several points of one dataId in a batch are evaluated one per cycle, oldest first", () => {
    const h = testEngine();
    h.engine.loadTrigger(strict2());
    // in timestamp order the values are 10, 1, 10: never two trues in a row
    h.engine.sendData([h.datum("x", 10, 3000), h.datum("x", 10, 1000), h.datum("x", 1, 2000)]);
    expect(h.engine.stats().evaluations).toBe(3);
    expect(h.alerts()).toHaveLength(0);
  });

  it("drops points closer than the interval to the previous kept point of the same dataId", () => {
    const h = testEngine({ minReportingIntervalData: 1000 });
    h.engine.loadTrigger(strict2());
    h.engine.sendData([0, 500, 1000, 1500, 2100].map((ts) => h.datum("x", 10, ts)));
    const s = h.engine.stats();
    expect([s.evaluations, s.dataDropped]).toEqual([3, 2]);
    expect(h.alerts()).toHaveLength(1); // kept points 0, 1000, 2100: one firing after two trues
  });

  it("drops an exact duplicate (same dataId and timestamp) even with no interval", () => {
    const h = testEngine({ minReportingIntervalData: 0 });
    h.engine.loadTrigger(strict2());
    h.engine.sendData([h.datum("x", 10, 5), h.datum("x", 10, 5)]);
    expect(h.engine.stats().dataDropped).toBe(1);
    expect(h.alerts()).toHaveLength(0);
  });

  it("the interval applies within a batch, not across calls", () => {
    const h = testEngine({ minReportingIntervalData: 1000 });
    h.engine.loadTrigger(strict2());
    h.engine.sendData([h.datum("x", 10, 100)]);
    h.engine.sendData([h.datum("x", 10, 200)]);
    expect(h.alerts()).toHaveLength(1);
  });

  it("events of one dataId in a batch are evaluated one per cycle (events interval 0 by default)", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "ev", enabled: true }, conditions: [{ type: "EVENT", dataId: "deploys" }] }));
    const e = (id: string, ctime: number) => ({ eventType: "EVENT" as const, tenantId: TENANT, id, ctime, dataId: "deploys", category: "c", text: "t" });
    h.engine.sendEvents([e("b", 2), e("a", 1), e("a", 1)]);
    expect(h.alerts()).toHaveLength(2);
    expect(h.alerts().map((a) => (a.evalSets![0]![0]!.type === "EVENT" ? (a.evalSets![0]![0] as { value: { id: string } }).value.id : ""))).toEqual([
      "a",
      "b",
    ]);
  });
});

describe("engine bookkeeping", () => {
  it("tells which dataIds an enabled trigger reads, per tenant", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "w", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
    expect(h.engine.watches(TENANT, "x")).toBe(true);
    expect(h.engine.watches(TENANT, "y")).toBe(false);
    expect(h.engine.watches("other-tenant", "x")).toBe(false);
    h.engine.setEnabled(TENANT, "w", false);
    expect(h.engine.watches(TENANT, "x")).toBe(false);
    h.engine.setEnabled(TENANT, "w", true);
    expect(h.engine.removeTrigger(TENANT, "w")).toBe(true);
    expect(h.engine.watches(TENANT, "x")).toBe(false);
  });

  it("a removed trigger stops evaluating and leaves no timers", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "gone", enabled: true }, conditions: [{ type: "MISSING", dataId: "hb", interval: 1000 }, threshold("x", "GT", 0)] }),
    );
    expect(h.clock.pending()).toBe(1);
    expect(h.engine.removeTrigger(TENANT, "gone")).toBe(true);
    expect(h.clock.pending()).toBe(0);
    h.engine.sendData([h.datum("x", 1)]);
    h.clock.advance(5000);
    expect(h.alerts()).toHaveLength(0);
    expect(h.engine.stats()).toMatchObject({ triggers: 0, indexedKeys: 0 });
    expect(h.engine.removeTrigger(TENANT, "gone")).toBe(false);
  });

  it("a listener that sends data back in is served after the current cycle", () => {
    const clock = createManualClock(0);
    const seen: string[] = [];
    const engine = createAlertsEngine({
      clock: clock.now,
      scheduler: clock.scheduler,
      minReportingIntervalData: 0,
      listener: (e) => {
        if (e.kind !== "alert") return;
        seen.push(e.alert.dataId!);
        if (e.alert.dataId === "first") engine.sendData([{ tenantId: TENANT, id: "y", timestamp: 2, value: 1 }]);
      },
    });
    engine.loadTrigger(fullTrigger({ trigger: { id: "first", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
    engine.loadTrigger(fullTrigger({ trigger: { id: "second", enabled: true }, conditions: [threshold("y", "GT", 0)] }));
    engine.sendData([{ tenantId: TENANT, id: "x", timestamp: 1, value: 1 }]);
    expect(seen).toEqual(["first", "second"]);
  });

  it("a failing listener does not break evaluation", () => {
    const clock = createManualClock(0);
    const warnings: string[] = [];
    let calls = 0;
    const engine = createAlertsEngine({
      clock: clock.now,
      scheduler: clock.scheduler,
      listener: () => {
        calls++;
        throw new Error("storage down");
      },
      onWarning: (w) => warnings.push(w),
    });
    engine.loadTrigger(fullTrigger({ trigger: { id: "t", enabled: true, autoResolve: true }, conditions: [threshold("x", "GT", 0)] }));
    engine.sendData([{ tenantId: TENANT, id: "x", timestamp: 1, value: 1 }]);
    expect(calls).toBe(2); // the alert and the mode change
    expect(warnings[0]).toContain("storage down");
    expect(engine.getMode(TENANT, "t")).toBe("AUTORESOLVE");
  });
});
