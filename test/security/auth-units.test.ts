import { describe, expect, it } from "vitest";
import { hashTokenSecret, mosquittoHash, newToken, splitToken, verifyTokenSecret } from "../../collector/auth/secrets.ts";
import { FailureThrottle } from "../../collector/auth/throttle.ts";
import { OPEN_MQTT, publishDenied, subscribeDenied } from "../../collector/ingest/agent-access.ts";
import { parseTrustedProxies } from "../../collector/security.ts";
import { parseAuthorization } from "../../src/http/authorization.ts";
import { isLoopbackHost } from "../../src/net/loopback.ts";

describe("the failure throttle", () => {
  it("lets `free` failures through, then pauses the address for a time that doubles up to the maximum", () => {
    let now = 0;
    const t = new FailureThrottle({ free: 2, windowMs: 60_000, firstPauseMs: 1000, maxPauseMs: 4000, maxAddresses: 100 }, () => now);
    t.failed("a");
    t.failed("a");
    expect(t.waitMs("a")).toBe(0);
    t.failed("a");
    expect(t.waitMs("a")).toBe(1000);
    t.failed("a");
    expect(t.waitMs("a")).toBe(2000);
    t.failed("a");
    t.failed("a");
    expect(t.waitMs("a")).toBe(4000);
    expect(t.waitMs("b")).toBe(0);
    expect(t.blockedCount()).toBe(1);
    now += 4000;
    expect(t.waitMs("a")).toBe(0);
    // Once the window is over and the pause served, the address starts afresh.
    now += 60_000;
    t.failed("a");
    expect(t.waitMs("a")).toBe(0);
  });

  it("forgets the oldest address beyond its bound", () => {
    const t = new FailureThrottle({ free: 0, windowMs: 60_000, firstPauseMs: 1000, maxPauseMs: 1000, maxAddresses: 2 });
    for (const a of ["a", "b", "c"]) t.failed(a);
    expect(t.waitMs("a")).toBe(0);
    expect(t.waitMs("c")).toBeGreaterThan(0);
  });
});

describe("Authorization headers", () => {
  it("reads Basic (a password may hold ':') and Bearer, and says what is malformed", () => {
    expect(parseAuthorization(`Basic ${btoa("alice:pa:ss")}`)).toEqual({ scheme: "basic", user: "alice", password: "pa:ss" });
    expect(parseAuthorization("bearer abc.def")).toEqual({ scheme: "bearer", token: "abc.def" });
    // InfluxDB 2 clients say "Token".
    expect(parseAuthorization("Token abc")).toEqual({ scheme: "bearer", token: "abc" });
    expect(parseAuthorization(undefined)).toBeUndefined();
    expect(parseAuthorization("Basic !!!")).toMatch(/base64/);
    expect(parseAuthorization(`Basic ${btoa("no-colon")}`)).toMatch(/user:password/);
    expect(parseAuthorization("Digest x")).toMatch(/not supported/);
  });
});

describe("secrets", () => {
  it("writes Mosquitto's $7$ format: the hash mosquitto_passwd made for 'secret'", () => {
    expect(mosquittoHash("secret", 101, Buffer.from("ojVQR+i1a3NINN+p", "base64"))).toBe(
      "$7$101$ojVQR+i1a3NINN+p$nsGrQepxhZnPnesCMgXd4RbRSWfXXInPC3u17jBCUoUbaaN7FRduS7dYoYRmA6wxk+WpAfKZgd+DiDFCpb2mBQ==",
    );
  });

  it("tokens: the id finds the entry, only the secret's keyed hash is kept, and a changed secret fails", () => {
    const t = newToken();
    const parts = splitToken(t.token)!;
    expect(parts).toEqual({ id: t.id, secret: t.secret });
    const stored = hashTokenSecret(t.secret);
    expect(stored).not.toContain(t.secret);
    expect(verifyTokenSecret(t.secret, stored)).toBe(true);
    const changed = t.secret.slice(0, -1) + (t.secret.endsWith("A") ? "B" : "A");
    expect(verifyTokenSecret(changed, stored)).toBe(false);
    expect(hashTokenSecret(t.secret)).not.toBe(stored);
    expect(splitToken("outpost_123_abc")).toBeUndefined();
  });
});

describe("addresses", () => {
  it("loopback: localhost, 127/8, ::1; everything else is exposed", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "example.com", "192.168.1.1", ""]) expect(isLoopbackHost(h), h).toBe(false);
  });

  it("trusted proxies: addresses and CIDR ranges, v4 and v6; a typo is an option error", () => {
    const trusted = parseTrustedProxies(["10.0.0.0/8", "192.168.1.5", "fd00::/8"])!;
    expect(["10.1.2.3", "192.168.1.5", "fd12::1"].map(trusted)).toEqual([true, true, true]);
    expect(["11.0.0.1", "192.168.1.6", "fe80::1"].map(trusted)).toEqual([false, false, false]);
    expect(parseTrustedProxies([])).toBeUndefined();
    expect(() => parseTrustedProxies(["10.0.0.0/33"])).toThrow(/not an IP address or CIDR/);
    expect(() => parseTrustedProxies(["proxy.local"])).toThrow(/not an IP address or CIDR/);
  });
});

describe("who may use which topic on the embedded broker", () => {
  const agent = { kind: "agent" as const, tenant: "A", feed: "f1" };
  it("an agent: its own feed's agent→collector kinds to publish, its own ack and triggers to subscribe", () => {
    expect(publishDenied("svc", agent, "svc/A/f1/data")).toBeUndefined();
    expect(publishDenied("svc", agent, "svc/A/f1/status")).toBeUndefined();
    expect(publishDenied("svc", agent, "svc/B/f1/data")).toMatch(/another tenant/);
    expect(publishDenied("svc", agent, "svc/A/f2/data")).toMatch(/another feed/);
    expect(publishDenied("svc", agent, "svc/A/f1/ack")).toMatch(/do not publish ack/);
    expect(subscribeDenied("svc", agent, "svc/A/f1/ack")).toBeUndefined();
    expect(subscribeDenied("svc", agent, "svc/A/f1/triggers")).toBeUndefined();
    expect(subscribeDenied("svc", agent, "svc/A/+/ack")).toMatch(/not this agent's feed/);
    expect(subscribeDenied("svc", agent, "svc/B/f1/ack")).toMatch(/another tenant/);
    expect(subscribeDenied("svc", agent, "svc/#")).toMatch(/beyond one tenant/);
    expect(subscribeDenied("svc", agent, "svc/A/f1/data")).toMatch(/do not receive data/);
  });

  it("without an auth file (loopback only): any tenant, still only the agents' kinds", () => {
    expect(publishDenied("svc", OPEN_MQTT, "svc/B/f9/data")).toBeUndefined();
    expect(publishDenied("svc", OPEN_MQTT, "svc/B/f9/ack")).toMatch(/do not publish ack/);
    expect(subscribeDenied("svc", OPEN_MQTT, "svc/B/+/ack")).toBeUndefined();
  });
});
