import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { alertsClient, eventually, nextTimestamp, thresholdTrigger } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-alerts-restart-"));
let col: TestCollector | undefined;
afterAll(async () => {
  await col?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("durability across a collector restart", () => {
  it("keeps triggers, alerts, events, actions and history; reloads modes as the spec says; keeps autoDisable's state", async () => {
    col = await startTestCollector({}, dir);
    let api = alertsClient(col);
    const send = (id: string, value: number) => api.ok("POST", "/data", [{ id, timestamp: nextTimestamp(), value }]);

    await api.ok("POST", "/actions", { actionPlugin: "file", actionId: "log", properties: { path: join(dir, "actions.jsonl") } });
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "auto", enabled: true, autoResolve: true, actions: [{ actionPlugin: "file", actionId: "log" }] },
      conditions: [
        { type: "THRESHOLD", dataId: "auto.v", operator: "GT", threshold: 10 },
        { type: "THRESHOLD", dataId: "auto.v", operator: "LT", threshold: 5, triggerMode: "AUTORESOLVE" },
      ],
      dampenings: [{ type: "STRICT", evalTrueSetting: 1 }],
    });
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("once", "once.v", 10, { autoDisable: true }));
    await api.ok("POST", "/triggers/groups", { id: "grp", enabled: true });
    await api.ok("PUT", "/triggers/groups/grp/conditions", { conditions: [{ type: "THRESHOLD", dataId: "tok", operator: "GT", threshold: 1 }] });
    await api.ok("POST", "/triggers/groups/members", { groupId: "grp", memberId: "grp-m", dataIdMap: { tok: "m.v" } });
    await api.ok("POST", "/events", { id: "ev-1", category: "C", text: "kept" });

    await send("auto.v", 20); // fires; the trigger moves to AUTORESOLVE
    await send("auto.v", 30); // nothing: AUTORESOLVE mode
    await send("once.v", 20); // fires, then disables itself
    const [autoAlert] = await api.ok("GET", "/?triggerIds=auto");
    await api.ok("PUT", `/ack/${autoAlert.id}?ackBy=ann&ackNotes=noted`);
    const history = await eventually(
      () => api.ok("GET", "/actions/history"),
      (h: { result: string }[]) => h.length === 2 && h.every((a) => a.result === "PROCESSED"),
      "both actions processed",
    );

    const before = {
      triggers: await api.ok("GET", "/triggers?sort=id"),
      auto: await api.ok("GET", "/triggers/trigger/auto"),
      alerts: await api.ok("GET", "/?sort=ctime&order=asc"),
      events: await api.ok("GET", "/events"),
      actions: await api.ok("GET", "/actions/file/log"),
      history,
    };
    expect(before.alerts).toHaveLength(2);
    expect((await api.ok("GET", "/triggers/once")).enabled).toBe(false);

    await col.stop();
    col = await startTestCollector({}, dir);
    api = alertsClient(col);

    expect(await api.ok("GET", "/triggers?sort=id")).toEqual(before.triggers);
    expect(await api.ok("GET", "/triggers/trigger/auto")).toEqual(before.auto);
    expect(await api.ok("GET", "/?sort=ctime&order=asc")).toEqual(before.alerts);
    expect(await api.ok("GET", "/events")).toEqual(before.events);
    expect(await api.ok("GET", "/actions/file/log")).toEqual(before.actions);
    expect(await api.ok("GET", "/actions/history")).toEqual(before.history);

    // AUTORESOLVE → FIRING on start-up: the firing condition is evaluated again
    await send("auto.v", 40);
    expect(await api.ok("GET", "/?triggerIds=auto")).toHaveLength(2);
    // disabled by autoDisable before the restart, still disabled
    expect((await api.ok("GET", "/triggers/once")).enabled).toBe(false);
    await send("once.v", 50);
    expect(await api.ok("GET", "/?triggerIds=once")).toHaveLength(1);
    // members are evaluated again
    await send("m.v", 5);
    expect(await api.ok("GET", "/?triggerIds=grp-m")).toHaveLength(1);
  });
});
