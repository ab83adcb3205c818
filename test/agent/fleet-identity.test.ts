/**
 * The agent's side of fleet management on disk (docs/fleet.md): its identity made once and kept
 * private, a key file others can read or that is not a key refused in one line, signed claims the
 * collector's check accepts, and the remote configuration it last ran laid over its local
 * options at start, pinned options kept, a stored revision this version cannot read ignored.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openAgentFleet } from "../../agent/fleet/agent-fleet.ts";
import { loadOrCreateIdentity } from "../../agent/fleet/identity-file.ts";
import { createLogger } from "../../src/log/logger.ts";
import { verifyClaim } from "../../src/protocol/identity.ts";

const log = createLogger("silent");
const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-agent-fleet-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the agent's identity", () => {
  it("is made once, kept 0600, and the same at every start", () => {
    const d = dir();
    const a = loadOrCreateIdentity(d, log);
    expect(a.instance).toMatch(/^[0-9a-f]{32}$/);
    expect(statSync(join(d, "identity.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(d, "identity.key"), "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(loadOrCreateIdentity(d, log).instance).toBe(a.instance);
    expect(loadOrCreateIdentity(dir(), log).instance).not.toBe(a.instance);
  });

  it("refuses a key file others can read, or one that is not an Ed25519 key, saying what to do", () => {
    const d = dir();
    loadOrCreateIdentity(d, log);
    chmodSync(join(d, "identity.key"), 0o644);
    expect(() => loadOrCreateIdentity(d, log)).toThrow(/identity\.key is readable by other users: chmod 600 it/);
    writeFileSync(join(d, "identity.key"), "not a key", { mode: 0o600 });
    chmodSync(join(d, "identity.key"), 0o600);
    expect(() => loadOrCreateIdentity(d, log)).toThrow(/is not a private key .*delete it to make a new identity/);
  });

  it("signs claims the collector verifies", () => {
    const f = openAgentFleet({ values: { tags: ["role=edge"] }, tenant: "acme", feed: "web-1", dataDir: dir(), log });
    const s = f.statusFields("online", 4, 1234);
    expect(s).toMatchObject({ instance: f.identity.instance, tags: { role: "edge" } });
    expect(verifyClaim({ tenant: "acme", feed: "web-1", instance: f.identity.instance, session: 4, at: 1234 }, s.key!, s.sig!)).toBe(true);
    expect(verifyClaim({ tenant: "acme", feed: "web-2", instance: f.identity.instance, session: 4, at: 1234 }, s.key!, s.sig!)).toBe(false);
    // A last will carries the identity, not a claim.
    expect(f.statusFields("offline", 4, 1234)).toEqual({ instance: f.identity.instance, host: f.host, tags: { role: "edge" } });
  });
});

describe("the remote configuration kept from the last run", () => {
  it("is laid over the local options at start, except pinned ones; one this version cannot read is ignored", () => {
    const d = dir();
    writeFileSync(join(d, "remote-config.json"), JSON.stringify({ revision: 7, config: { "host-interval": "30s", "log-level": "debug", "buffer-max-bytes": "64MiB" } }), { mode: 0o600 });
    const local = { "host-interval": 10_000, "log-level": "warn", "buffer-max-bytes": 256 * 1024 ** 2, pin: ["log-level"] };
    const f = openAgentFleet({ values: local, tenant: "acme", feed: "web-1", dataDir: d, log });
    expect(f.values).toMatchObject({ "host-interval": 30_000, "log-level": "warn", "buffer-max-bytes": 64 * 1024 ** 2 });

    const other = dir();
    writeFileSync(join(other, "remote-config.json"), JSON.stringify({ revision: 8, config: { "host-intervall": "30s" } }), { mode: 0o600 });
    expect(openAgentFleet({ values: local, tenant: "acme", feed: "web-1", dataDir: other, log }).values).toMatchObject({ "host-interval": 10_000 });
  });
});
