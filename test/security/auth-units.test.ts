import { describe, expect, it } from "vitest";
import { hashTokenSecret, mosquittoHash, newToken, splitToken, verifyTokenSecret } from "../../collector/auth/secrets.ts";
import { FailureThrottle } from "../../collector/auth/throttle.ts";
import { OPEN_MQTT, publishDenied, subscribeDenied } from "../../collector/ingest/agent-access.ts";
import { parseTrustedProxies } from "../../collector/security.ts";
import { parseAuthorization } from "../../src/http/authorization.ts";
import { isLoopbackHost } from "../../src/net/loopback.ts";

describe("the failure throttle", () => {
  const options = { perAddress: 3, perUser: 5, perUserElsewhere: 2, overall: 12, windowMs: 60_000, maxKeys: 100 };

  it("takes a slot before the check, so attempts running at once are counted; a success gives it back, a failure keeps it a minute", () => {
    let now = 0;
    const t = new FailureThrottle(options, () => now);
    const running = [t.begin("10.0.0.1", "alice"), t.begin("10.0.0.1", "alice"), t.begin("10.0.0.1", "alice")];
    expect(running.every((a) => a.ok)).toBe(true);
    // A fourth attempt while three checks still run: refused before any check.
    const fourth = t.begin("10.0.0.1", "alice");
    expect(fourth).toEqual({ ok: false, waitMs: 60_000, why: "address" });
    // One of the three was the right password: its slot is free again.
    if (running[0]!.ok) running[0]!.attempt.succeeded();
    expect(t.begin("10.0.0.1", "alice").ok).toBe(true);
    for (const a of running.slice(1)) if (a.ok) a.attempt.failed();
    expect(t.blockedCount()).toBe(1);
    now = 60_001;
    expect(t.begin("10.0.0.1", "alice").ok).toBe(true);
  });

  it("counts all of loopback as one address, and an IPv6 /64 as one", () => {
    const t = new FailureThrottle(options, () => 0);
    for (const a of ["127.0.0.2", "127.9.8.7", "::ffff:127.0.0.3"]) expect(t.begin(a, `u${a}`).ok).toBe(true);
    expect(t.begin("::1", "x")).toMatchObject({ ok: false, why: "address" });
    for (const a of ["2001:db8::1", "2001:db8:0:0:ffff::2", "2001:0db8::3"]) expect(t.begin(a, `u${a}`).ok).toBe(true);
    expect(t.begin("2001:db8::abcd", "x")).toMatchObject({ ok: false, why: "address" });
    expect(t.begin("2001:db8:0:1::1", "x").ok).toBe(true);
  });

  it("holds a user name's budget whatever the address; the user still gets checked from an address that did not fail", () => {
    const t = new FailureThrottle(options, () => 0);
    // Five failures for alice from two other addresses fill her budget.
    for (const a of ["10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2", "10.0.0.2"]) {
      const r = t.begin(a, "alice");
      expect(r.ok).toBe(true);
      if (r.ok) r.attempt.failed();
    }
    expect(t.begin("10.0.0.1", "alice")).toMatchObject({ ok: false, why: "user" });
    // Other names from there are the address's business only.
    expect(t.begin("10.0.0.1", "bob").ok).toBe(true);
    // From an address that never failed for alice: a few checks still run (a rotating guesser gets no more).
    expect(t.begin("10.0.0.7", "alice").ok).toBe(true);
    expect(t.begin("10.0.0.8", "alice").ok).toBe(true);
    expect(t.begin("10.0.0.9", "alice")).toMatchObject({ ok: false, why: "user" });
  });

  it("has an overall budget, so many addresses and many names do not multiply the rate", () => {
    const t = new FailureThrottle(options, () => 0);
    for (let i = 0; i < 12; i++) {
      const r = t.begin(`10.0.${i}.1`, `user${i}`);
      expect(r.ok).toBe(true);
      if (r.ok) r.attempt.failed();
    }
    expect(t.begin("10.9.9.9", "someone")).toMatchObject({ ok: false, why: "overall" });
  });

  it("forgets the quietest key beyond its bound", () => {
    const t = new FailureThrottle({ ...options, perAddress: 1, overall: 1000, maxKeys: 4 }, () => 0);
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      const r = t.begin(a, "u");
      if (r.ok) r.attempt.failed();
    }
    expect(t.begin("10.0.0.1", "v").ok).toBe(true);
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
