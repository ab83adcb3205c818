/**
 * The fleet parts of the protocol (docs/protocol.md, docs/fleet.md): claims signed with the
 * agent's Ed25519 key and checked against its instance id, statuses with and without identity
 * (older agents), identities on batches and acks, and the claim, config and config-status
 * messages.
 */
import { generateKeyPairSync, createPublicKey, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeClaim, decodeConfig, decodeConfigStatus, encodeClaim, encodeConfig, encodeConfigStatus } from "../../src/protocol/fleet-messages.ts";
import { claimText, instanceIdOf, rawPublicKey, verifyClaim } from "../../src/protocol/identity.ts";
import { decodeAck, decodeData, decodeStatus, encodeAck, encodeChunk, encodeData, encodeStatus, ProtocolError } from "../../src/protocol/messages.ts";
import { agentClientId, isAgentClientIdOf } from "../../src/protocol/topics.ts";

const enc = createEncoder();
const dec = createDecoder();

function keyPair() {
  const { privateKey } = generateKeyPairSync("ed25519");
  const raw = rawPublicKey(createPublicKey(privateKey).export({ format: "der", type: "spki" }));
  return { privateKey, raw, instance: instanceIdOf(raw) };
}

describe("identity claims", () => {
  it("verifies a claim signed by the instance's own key, and nothing else", () => {
    const a = keyPair();
    const b = keyPair();
    expect(a.instance).toMatch(/^[0-9a-f]{32}$/);
    expect(a.raw.length).toBe(32);
    const claim = { tenant: "acme", feed: "web-1", instance: a.instance, session: 3, at: 1_700_000_000_000 };
    const sig = new Uint8Array(sign(null, claimText(claim), a.privateKey));
    expect(verifyClaim(claim, a.raw, sig)).toBe(true);
    // Another feed, session or time: the signature no longer covers it.
    expect(verifyClaim({ ...claim, feed: "web-2" }, a.raw, sig)).toBe(false);
    expect(verifyClaim({ ...claim, session: 4 }, a.raw, sig)).toBe(false);
    // Another agent's key under this id, or this id claimed with another key.
    expect(verifyClaim(claim, b.raw, new Uint8Array(sign(null, claimText(claim), b.privateKey)))).toBe(false);
    expect(verifyClaim({ ...claim, instance: b.instance }, a.raw, sig)).toBe(false);
    expect(verifyClaim(claim, a.raw, sig.subarray(1))).toBe(false);
  });

  it("names a client id after the instance, which brokers accept for the credential's feed", () => {
    const id = "0123456789abcdef0123456789abcdef";
    expect(agentClientId("acme", "web/1", id)).toBe(`outpost-agent:acme:web%2F1:${id}`);
    expect(isAgentClientIdOf(agentClientId("acme", "web/1", id), "acme", "web/1")).toBe(true);
    expect(isAgentClientIdOf(agentClientId("acme", "web/1"), "acme", "web/1")).toBe(true);
    expect(isAgentClientIdOf(agentClientId("acme", "web/2", id), "acme", "web/1")).toBe(false);
    expect(isAgentClientIdOf(`${agentClientId("acme", "web/1")}:not-an-id`, "acme", "web/1")).toBe(false);
    expect(isAgentClientIdOf(`${agentClientId("acme", "web")}:1:${id}`, "acme", "web")).toBe(false);
  });
});

describe("statuses, batches and acks with identities", () => {
  const a = keyPair();
  it("carries the claim in an online status and reads statuses of agents without identity as before", () => {
    const sig = new Uint8Array(64).fill(7);
    const s = decodeStatus(dec, encodeStatus(enc, { state: "online", session: 2, at: 5, instance: a.instance, key: a.raw, sig, host: "h1", tags: { role: "edge" } }));
    expect(s).toMatchObject({ state: "online", session: 2, at: 5, instance: a.instance, host: "h1", tags: { role: "edge" } });
    expect([...s.key!]).toEqual([...a.raw]);
    expect([...s.sig!]).toEqual([...sig]);
    expect(decodeStatus(dec, encodeStatus(enc, { state: "offline", session: 2, at: 5 }))).toEqual({ state: "offline", session: 2, at: 5 });
    expect(() => decodeStatus(dec, enc.encode({ v: 1, kind: "status", state: "online", session: 1, at: 1, instance: "xyz" }))).toThrow(/instance: expected 32 hexadecimal digits/);
    expect(() => decodeStatus(dec, enc.encode({ v: 1, kind: "status", state: "online", session: 1, at: 1, instance: a.instance, key: new Uint8Array(3), sig }))).toThrow(/key: expected 32 bytes/);
  });

  it("names the sender of a data batch and the addressee of an ack; older messages stay valid", () => {
    const chunk = encodeChunk(enc, [{ type: "gauge", id: "g", points: [{ timestamp: 1, value: 1 }] }]);
    expect(decodeData(dec, encodeData(enc, { session: 1, seq: 1, sentAt: 1, replay: false, chunks: [chunk], instance: a.instance })).instance).toBe(a.instance);
    expect(decodeData(dec, encodeData(enc, { session: 1, seq: 1, sentAt: 1, replay: false, chunks: [chunk] })).instance).toBeUndefined();
    expect(() => decodeData(dec, enc.encode({ v: 1, kind: "data", session: 1, seq: 2, sentAt: 1, replay: false, chunks: [chunk], instance: 7 }))).toThrow(ProtocolError);
    expect(decodeAck(dec, encodeAck(enc, { session: 1, seqs: [1], instance: a.instance }))).toEqual({ session: 1, seqs: [1], instance: a.instance, rejected: undefined });
    expect(decodeAck(dec, encodeAck(enc, { session: 1, seqs: [1] })).instance).toBeUndefined();
  });
});

describe("claim, config and config-status messages", () => {
  const id = "0123456789abcdef0123456789abcdef";
  it("round-trips each and refuses malformed ones with the field at fault", () => {
    const refused = { instance: id, granted: false, holder: { instance: "f".repeat(32), host: "old-box", since: 1000 } };
    expect(decodeClaim(dec, encodeClaim(enc, refused))).toEqual(refused);
    expect(decodeClaim(dec, encodeClaim(enc, { instance: id, granted: true }))).toEqual({ instance: id, granted: true });
    expect(decodeClaim(dec, encodeClaim(enc, { instance: id, granted: false, reclaim: true }))).toEqual({ instance: id, granted: false, reclaim: true });
    expect(() => decodeClaim(dec, enc.encode({ v: 1, kind: "claim", instance: id, granted: "yes" }))).toThrow(/granted: expected a boolean/);

    const config = { revision: 4, config: { "log-level": "debug", inputs: { statsd: { udp: "127.0.0.1:8125" } } } };
    expect(decodeConfig(dec, encodeConfig(enc, config))).toEqual(config);
    expect(() => decodeConfig(dec, enc.encode({ v: 1, kind: "config", revision: -1, config: {} }))).toThrow(/revision: expected an integer ≥ 0/);
    expect(() => decodeConfig(dec, enc.encode({ v: 2, kind: "config", revision: 1, config: {} }))).toThrow(/unsupported config message version 2/);

    const failed = { instance: id, revision: 5, state: "failed" as const, running: 4, error: "StatsD cannot listen" };
    expect(decodeConfigStatus(dec, encodeConfigStatus(enc, failed))).toEqual(failed);
    const applied = { revision: 5, state: "applied" as const, running: 5, kept: ["inputs"] };
    expect(decodeConfigStatus(dec, encodeConfigStatus(enc, applied))).toEqual(applied);
    expect(decodeConfigStatus(dec, encodeConfigStatus(enc, { ...failed, error: "x".repeat(5000) })).error).toHaveLength(2000);
    expect(() => decodeConfigStatus(dec, enc.encode({ v: 1, kind: "config-status", revision: 1, state: "applying", running: 0 }))).toThrow(/state: expected applied or failed/);
  });
});
