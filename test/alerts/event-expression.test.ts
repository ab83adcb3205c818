import { describe, expect, it } from "vitest";
import { type Event, eventExpressionMatches, parseEventExpression } from "../../src/alerts/index.ts";
import { fullTrigger, TENANT, testEngine } from "./helpers.ts";

const ev: Event = {
  eventType: "EVENT",
  tenantId: "acme",
  id: "evt-42",
  ctime: 1500,
  dataId: "deployments",
  category: "DEPLOYMENT",
  text: "Deployed app, version 1.2",
  tags: { env: "prod", build: "17", region: "eu-west" },
};

const m = (expr: string, e: Event = ev) => eventExpressionMatches(expr, e);

describe("event expression: fields and operators", () => {
  it("== and != on string fields", () => {
    expect(m("tenantId == 'acme'")).toBe(true);
    expect(m("id == 'evt-42'")).toBe(true);
    expect(m("category == 'DEPLOYMENT'")).toBe(true);
    expect(m("category != 'DEPLOYMENT'")).toBe(false);
    expect(m("category != 'ALERT'")).toBe(true);
    expect(m("tags.env == 'prod'")).toBe(true);
    expect(m("tags.env != 'prod'")).toBe(false);
  });

  it("== and != on ctime compare numbers", () => {
    expect(m("ctime == 1500")).toBe(true);
    expect(m("ctime != 1500")).toBe(false);
    expect(m("ctime != 1")).toBe(true);
  });

  it("a string field compared with a number (or ctime with a string) is false, even for !=", () => {
    expect(m("category != 5")).toBe(false);
    expect(m("ctime == '1500'")).toBe(false);
  });

  it("starts, ends, contains", () => {
    expect(m("text starts 'Deployed'")).toBe(true);
    expect(m("text starts 'app'")).toBe(false);
    expect(m("text ends '1.2'")).toBe(true);
    expect(m("text ends 'Deployed'")).toBe(false);
    expect(m("text contains 'app'")).toBe(true);
    expect(m("text contains 'db'")).toBe(false);
    expect(m("tags.region starts 'eu'")).toBe(true);
  });

  it("match (also written matches) is a whole-value regular expression", () => {
    expect(m("category match 'DEPLOY.*'")).toBe(true);
    expect(m("category matches 'DEPLOY.*'")).toBe(true);
    expect(m("category match 'DEPLOY'")).toBe(false);
  });

  it("<, <=, >, >= on ctime and on numeric string fields", () => {
    expect(m("ctime > 1000")).toBe(true);
    expect(m("ctime >= 1500")).toBe(true);
    expect(m("ctime < 1500")).toBe(false);
    expect(m("ctime <= 1500")).toBe(true);
    expect(m("tags.build > 16")).toBe(true);
    expect(m("tags.build < 16.5")).toBe(false);
    expect(m("tags.env > 1")).toBe(false); // not a number
  });

  it("a missing tag makes the clause false", () => {
    expect(m("tags.owner == 'me'")).toBe(false);
    expect(m("tags.owner != 'me'")).toBe(false);
  });

  it("all comma-separated clauses must hold", () => {
    expect(m("category == 'DEPLOYMENT', tags.env == 'prod', ctime > 1000")).toBe(true);
    expect(m("category == 'DEPLOYMENT', tags.env == 'test'")).toBe(false);
  });

  it("an empty expression matches every event", () => {
    expect(m("")).toBe(true);
    expect(parseEventExpression("   ")).toEqual({ ok: true, clauses: [] });
  });
});

describe("event expression: escaping and constants", () => {
  it("a backslash-escaped comma stays inside a string constant", () => {
    expect(m("text == 'Deployed app\\, version 1.2'")).toBe(true);
    const parsed = parseEventExpression("text == 'a\\,b', category == 'x'");
    expect(parsed.ok && parsed.clauses.length).toBe(2);
    expect(parsed.ok && parsed.clauses[0]!.constant).toEqual({ kind: "string", value: "a,b" });
  });

  it("an unescaped comma splits the clause, so the string constant breaks and the expression is invalid", () => {
    expect(parseEventExpression("text == 'Deployed app, version 1.2'").ok).toBe(false);
    expect(m("text == 'Deployed app, version 1.2'")).toBe(false);
  });

  it("string constants keep their inner spaces", () => {
    expect(m("text == 'Deployed app\\, version 1.2'")).toBe(true);
    expect(m("text == 'Deployed  app\\, version 1.2'")).toBe(false);
  });
});

describe("event expression: invalid expressions evaluate to false", () => {
  it.each([
    ["unknown field", "color == 'red'"],
    ["unknown operator", "category === 'DEPLOYMENT'"],
    ["missing constant", "category =="],
    ["unbalanced quote", "category == 'DEPLOYMENT"],
    ["constant neither string nor number", "ctime > soon"],
    ["bad regex", "category match '('"],
    ["one bad clause among good ones", "category == 'DEPLOYMENT', nonsense"],
  ])("%s", (_, expr) => {
    const parsed = parseEventExpression(expr);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error.length > 0).toBe(true);
    expect(m(expr)).toBe(false);
  });
});

describe("event conditions in the engine", () => {
  it("evaluate events whose dataId and dataSource match, and record the event", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "deploys", enabled: true, source: "ci" },
        conditions: [{ type: "EVENT", dataId: "deployments", expression: "tags.env == 'prod'" }],
      }),
    );
    const base = { ...ev, tenantId: TENANT };
    h.engine.sendEvents([{ ...base, id: "a", dataSource: "other" }]); // wrong source
    h.engine.sendEvents([{ ...base, id: "b" }]); // no source is not "ci"
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendEvents([{ ...base, id: "c", dataSource: "ci", tags: { env: "test" } }]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendEvents([{ ...base, id: "d", dataSource: "ci" }]);
    expect(h.alerts()).toHaveLength(1);
    expect(h.alerts()[0]!.evalSets![0]![0]).toMatchObject({ type: "EVENT", value: { id: "d" }, dataTimestamp: 1500 });
  });

  it("an invalid expression never fires", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "bad", enabled: true }, conditions: [{ type: "EVENT", dataId: "deployments", expression: "color == 'red'" }] }),
    );
    h.engine.sendEvents([{ ...ev, tenantId: TENANT }]);
    expect(h.engine.stats().evaluations).toBe(1);
    expect(h.alerts()).toHaveLength(0);
  });
});
