/**
 * The console's "New trigger" form (collector/http/console/web/pages/trigger-form-model.ts): what
 * it sends. How each mode then behaves on the real alerts interface:
 * test/alerts-api/trigger-form-modes.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_FORM, FIRING_MODES, formProblem, type TriggerForm, triggerDefinition, triggerId } from "../../collector/http/console/web/pages/trigger-form-model.ts";

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
