import { describe, expect, it } from "vitest";
import { ackAlert, type Alert, resolveAlert } from "../../src/alerts/index.ts";
import { fullTrigger, testEngine, threshold } from "./helpers.ts";

function firedAlert(): Alert {
  const h = testEngine();
  h.engine.loadTrigger(fullTrigger({ trigger: { id: "t", enabled: true }, conditions: [threshold("x", "GT", 0)] }));
  h.engine.sendData([h.datum("x", 1)]);
  return h.alerts()[0]!;
}

describe("alert lifecycle", () => {
  it("OPEN → ACKNOWLEDGED records the user and a note", () => {
    const a = ackAlert(firedAlert(), "jane", 2000, "looking");
    expect(a.status).toBe("ACKNOWLEDGED");
    expect(a.lifecycle.map((l) => [l.status, l.user])).toEqual([
      ["OPEN", "system"],
      ["ACKNOWLEDGED", "jane"],
    ]);
    expect(a.notes).toEqual([{ user: "jane", ctime: 2000, text: "looking" }]);
  });

  it("auto-resolution records AutoResolve and the resolvedEvalSets; resolving twice changes nothing", () => {
    const evalSets = firedAlert().evalSets!;
    const r = resolveAlert(firedAlert(), "AutoResolve", 3000, undefined, evalSets);
    expect(r.status).toBe("RESOLVED");
    expect(r.lifecycle.at(-1)).toEqual({ status: "RESOLVED", user: "AutoResolve", stime: 3000 });
    expect(r.resolvedEvalSets).toBe(evalSets);
    expect(resolveAlert(r, "bob", 4000)).toBe(r);
  });

  it("only an OPEN alert can be acknowledged", () => {
    const r = resolveAlert(firedAlert(), "bob", 1);
    expect(ackAlert(r, "jane", 2)).toBe(r);
  });
});
