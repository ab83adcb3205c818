/**
 * The console's "New trigger" form (collector/http/console/web/pages/trigger-form-model.ts): what
 * it sends, and how each firing mode behaves once the real alerts interface has it — one alert
 * per episode by default, not one per point.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_FORM, FIRING_MODES, formProblem, type TriggerForm, triggerDefinition, triggerId } from "../../collector/http/console/web/pages/trigger-form-model.ts";
import { alertsClient, eventually } from "../alerts-api/helpers.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";

const form = (patch: Partial<TriggerForm>): TriggerForm => ({ ...DEFAULT_FORM, name: "Latency high", dataId: "app.latency", threshold: 100, ...patch });

describe("the form's definitions", () => {
  it("defaults to one alert resolved when the value is back: auto-resolve with the threshold's other side", () => {
    expect(DEFAULT_FORM.mode).toBe("auto-resolve");
    expect(FIRING_MODES[0]!.mode).toBe("auto-resolve");
    expect(triggerDefinition(form({}))).toEqual({
      trigger: { id: "latency-high", name: "Latency high", severity: "MEDIUM", enabled: true, autoResolve: true, autoResolveAlerts: true },
      conditions: [
        { triggerMode: "FIRING", type: "THRESHOLD", dataId: "app.latency", operator: "GT", threshold: 100 },
        { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: "app.latency", operator: "LTE", threshold: 100 },
      ],
    });
    expect(FIRING_MODES[0]!.explain(form({}))).toBe(
      "Fires once when app.latency > 100, then only watches for ≤ 100: that resolves the alert by itself and re-arms the trigger. One alert per episode.",
    );
  });

  it("sustained adds a strict dampening; every point is Hawkular's plain trigger; mistakes are named", () => {
    expect(triggerDefinition(form({ mode: "sustained", consecutive: 3, operator: "LT" }))).toMatchObject({
      conditions: [{ operator: "LT" }, { triggerMode: "AUTORESOLVE", operator: "GTE" }],
      dampenings: [{ triggerMode: "FIRING", type: "STRICT", evalTrueSetting: 3 }],
    });
    const plain = triggerDefinition(form({ mode: "every-point" }));
    expect(plain.trigger).not.toHaveProperty("autoResolve");
    expect(plain.conditions).toHaveLength(1);
    expect(triggerId("  CPU > 90 % on web-1! ")).toBe("cpu-90-on-web-1");
    expect(formProblem(form({ name: " " }))).toBe("Give the trigger a name.");
    expect(formProblem(form({ threshold: Number.NaN }))).toBe("The threshold must be a number.");
    expect(formProblem(form({ mode: "sustained", consecutive: 1 }))).toMatch(/whole number from 2/);
    expect(formProblem(form({}))).toBeUndefined();
  });
});

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
