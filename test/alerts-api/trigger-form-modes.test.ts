/**
 * The console's "New trigger" form's firing modes on the real alerts interface (issue 25): one
 * alert per episode by default, not one per point. The definitions are the form's own
 * (collector/http/console/web/pages/trigger-form-model.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_FORM, type TriggerForm, triggerDefinition } from "../../collector/http/console/web/pages/trigger-form-model.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { alertsClient, eventually } from "./helpers.ts";

const form = (patch: Partial<TriggerForm>): TriggerForm => ({ ...DEFAULT_FORM, name: "Latency high", dataId: "app.latency", threshold: 100, ...patch });

describe("each mode on the real alerts interface, fed five points over the threshold then one below", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector();
  });
  afterAll(() => col?.close());

  async function run(mode: TriggerForm["mode"], dataId: string) {
    const a = alertsClient(col);
    const def = triggerDefinition(form({ name: `t ${mode}`, dataId, mode, consecutive: 3 }));
    await a.ok("POST", "/triggers/trigger", def);
    const id = (def.trigger as { id: string }).id;
    const t0 = Date.now() - 60_000;
    const write = (i: number, value: number) => col.req("/svc/metrics/gauges/raw", { method: "POST", tenant: "t1", json: [{ id: dataId, data: [{ timestamp: t0 + i * 1000, value }] }] });
    const alerts = async () => ((await a.ok("GET", `?triggerIds=${id}&statuses=OPEN,ACKNOWLEDGED,RESOLVED`)) ?? []) as { status: string }[];
    // One point at a time, as an agent sends them, each evaluated before the next.
    for (let i = 0; i < 5; i++) expect((await write(i, 150)).status).toBe(200);
    const whileHigh = await eventually(alerts, (l) => l.length >= (mode === "every-point" ? 5 : 1), `alerts of ${mode}`);
    expect((await write(5, 50)).status).toBe(200);
    const after = mode === "every-point" ? await alerts() : await eventually(alerts, (l) => l.every((x) => x.status === "RESOLVED"), `resolution of ${mode}`);
    return { whileHigh: whileHigh.length, statuses: after.map((x) => x.status) };
  }

  it("auto-resolve (the default): one alert for the whole episode, resolved by the point below", async () => {
    expect(await run("auto-resolve", "m.auto")).toEqual({ whileHigh: 1, statuses: ["RESOLVED"] });
  });

  it("sustained: one alert once three points in a row matched, resolved by the point below", async () => {
    expect(await run("sustained", "m.sustained")).toEqual({ whileHigh: 1, statuses: ["RESOLVED"] });
  });

  it("every point: five alerts for five points, none resolved", async () => {
    expect(await run("every-point", "m.every")).toEqual({ whileHigh: 5, statuses: ["OPEN", "OPEN", "OPEN", "OPEN", "OPEN"] });
  });
});
