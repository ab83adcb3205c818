import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.ts";

describe("logger", () => {
  it("text lines: time, level, component, message, then fields", () => {
    const out: string[] = [];
    const log = createLogger("info", "collector", (l) => out.push(l)).child("ingest");
    log.info("agent online", { tenant: "acme", n: 3, err: new Error("boom"), skipped: undefined });
    log.debug("not shown");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z INFO {2}\[collector\.ingest\] agent online tenant=acme n=3 err="boom"\n$/);
  });

  it("JSON lines: one object per record; a field cannot hide the message", () => {
    const out: string[] = [];
    const log = createLogger("debug", "agent", (l) => out.push(l), "json");
    log.warn('quote " and\nnewline', { msg: "not me", url: "mqtt://x", err: new Error("refused") });
    const r = JSON.parse(out[0]!);
    expect(r).toEqual({ time: expect.any(String), level: "warn", component: "agent", msg: 'quote " and\nnewline', url: "mqtt://x", err: "refused" });
    expect(out[0]!.endsWith("}\n")).toBe(true);
    expect(out[0]!.split("\n")).toHaveLength(2);
  });

  it("one level for a logger and all its children, changed at run time", () => {
    const out: string[] = [];
    const root = createLogger("warn", "", (l) => out.push(l));
    const child = root.child("a").child("b");
    child.info("hidden");
    root.setLevel("debug");
    child.debug("shown");
    expect(child.level).toBe("debug");
    expect(out.join("")).toMatch(/DEBUG \[a\.b\] shown/);
    expect(out).toHaveLength(1);
  });
});
