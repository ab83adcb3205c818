import { describe, expect, it } from "vitest";
import { buildTopic, parseFilter, parseTopic } from "../../src/protocol/topics.ts";

describe("topics", () => {
  it("round-trips tenants and feeds containing MQTT-special characters", () => {
    const a = { tenant: "acme/eu+#", feed: "host $1 é", kind: "data" as const };
    const topic = buildTopic("svc", a);
    expect(topic.split("/")).toHaveLength(4);
    expect(topic).not.toMatch(/[+#$]/);
    expect(parseTopic("svc", topic)).toEqual(a);
  });

  it("rejects topics that are not agent topics", () => {
    for (const t of ["svc/t/f", "other/t/f/data", "svc/t/f/nope", "svc//f/data", "svc/t/f/data/x", "svc/%E0%A4%A/f/data"]) {
      expect(parseTopic("svc", t)).toBeUndefined();
    }
  });

  it("parses subscription filters only when they stay within one tenant", () => {
    expect(parseFilter("svc", "svc/t1/f1/ack")).toEqual({ tenant: "t1", feed: "f1", kind: "ack" });
    expect(parseFilter("svc", "svc/t1/+/triggers")).toEqual({ tenant: "t1", kind: "triggers" });
    for (const f of ["svc/+/f1/ack", "svc/#", "svc/t1/#", "#", "svc/t1/f+/ack", "+/t1/f1/ack"]) expect(parseFilter("svc", f)).toBeUndefined();
  });
});
