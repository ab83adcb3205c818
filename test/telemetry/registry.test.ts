import { describe, expect, it } from "vitest";
import { rateOf } from "../../src/telemetry/rate.ts";
import { renderPrometheus, Telemetry, telemetryWrites } from "../../src/telemetry/registry.ts";

describe("telemetry", () => {
  it("renders the Prometheus text format and metric writes from the same instruments", () => {
    const t = new Telemetry();
    const c = t.counter("x_total", "things\ncounted");
    c.inc(3);
    t.gauge("depth", "how deep", () => 1.5);
    t.gauge("broken", "not a number", () => Number.NaN);
    expect(renderPrometheus(t)).toBe(
      "# HELP x_total things\\ncounted\n# TYPE x_total counter\nx_total 3\n# HELP depth how deep\n# TYPE depth gauge\ndepth 1.5\n# HELP broken not a number\n# TYPE broken gauge\nbroken NaN\n",
    );
    expect(telemetryWrites(t, "f1:", 10)).toEqual([
      { type: "counter", id: "f1:x_total", points: [{ timestamp: 10, value: 3 }] },
      { type: "gauge", id: "f1:depth", points: [{ timestamp: 10, value: 1.5 }] },
    ]);
    expect(() => t.counter("x_total", "again")).toThrow(/twice/);
    expect(() => t.counter("bad name", "")).toThrow(/invalid/);
  });

  it("computes a rate over its window from reads", () => {
    let now = 0;
    let v = 0;
    const r = rateOf(() => v, 10_000, () => now);
    expect(r()).toBe(0);
    now = 5000;
    v = 500;
    expect(r()).toBe(100);
    now = 20_000;
    v = 3500;
    expect(r()).toBe(200);
  });
});
