import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, thresholdTrigger } from "./helpers.ts";

let col: TestCollector;
let api: AlertsClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = alertsClient(col);
  await api.ok("POST", "/triggers/trigger", thresholdTrigger("r1", "r1.v"));
  await api.ok("POST", "/triggers/groups", { id: "rg" });
  await api.ok("POST", "/triggers/r1/dampenings", { type: "STRICT", evalTrueSetting: 1 });
});
afterAll(async () => {
  await col.close();
});

const WRITES: [string, string][] = [
  ["POST", "/triggers"],
  ["POST", "/triggers/trigger"],
  ["PUT", "/triggers/trigger/r1"],
  ["PUT", "/triggers/r1"],
  ["PUT", "/triggers/r1/conditions"],
  ["PUT", "/triggers/r1/conditions/FIRING"],
  ["POST", "/triggers/r1/dampenings"],
  ["PUT", "/triggers/r1/dampenings/t1-r1-FIRING"],
  ["POST", "/triggers/groups"],
  ["PUT", "/triggers/groups/rg"],
  ["POST", "/triggers/groups/members"],
  ["PUT", "/triggers/groups/members/r1/unorphan"],
  ["PUT", "/triggers/groups/rg/conditions"],
  ["PUT", "/triggers/groups/rg/conditions/AUTORESOLVE"],
  ["POST", "/triggers/groups/rg/dampenings"],
  ["POST", "/data"],
  ["POST", "/events"],
  ["POST", "/events/data"],
  ["POST", "/actions"],
  ["PUT", "/actions"],
  ["POST", "/import/ALL"],
];

const BODIES = [
  "",
  "null",
  "42",
  '"text"',
  "[]",
  "{}",
  "[null]",
  "[1]",
  '[{"type":"NOPE"}]',
  '{"trigger":null}',
  '{"trigger":{"id":42,"tags":[]}}',
  '{"conditions":{}}',
  '{"id":{}}',
  '{"__proto__":{"polluted":true}}',
  '[{"id":"x","value":{"nested":1}}]',
  '{"type":"STRICT","evalTrueSetting":1e400}',
];

describe("bad input never gets a 500", () => {
  it("answers every malformed body with a 4xx and an errorMsg", async () => {
    const failures: string[] = [];
    for (const [method, path] of WRITES) {
      for (const body of BODIES) {
        const res = await col.req(`/svc/alerts${path}`, { method, body, headers: { "Content-Type": "application/json" } });
        const text = await res.text();
        if (res.status >= 500 || (res.status >= 400 && !JSON.parse(text).errorMsg)) failures.push(`${method} ${path} ${body} → ${res.status} ${text}`);
      }
    }
    expect(failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers malformed query values with 400s", async () => {
    const paths = [
      "/?startTime=1e3",
      "/?endTime=99999999999999999999",
      "/?page=-1",
      "/?per_page=abc",
      "/?thin=maybe",
      "/?tagQuery=%27unclosed",
      "/?tagQuery=a%20in%20%5B%27(%27%5D",
      "/events?startTime=x",
      "/actions/history?thin=2",
      "/watch?watchInterval=soon",
      "/triggers?tags=%7C",
      "/triggers/groups/rg/members?includeOrphans=perhaps",
    ];
    for (const p of paths) {
      const res = await api.get(p);
      expect(res.status, p).toBe(400);
      expect((await body(res)).errorMsg, p).toBeTruthy();
    }
  });
});
