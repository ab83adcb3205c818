/**
 * The agent's handling of upgrade orders, against a real HTTP server: the binary is downloaded
 * with the agent's credential and checked (size, SHA-256, the pinned key's signature) before
 * anything else is done with it; a refused order leaves nothing behind and is not tried again.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readUpgradeState } from "../../../agent/upgrade/state.ts";
import { Upgrader } from "../../../agent/upgrade/upgrader.ts";
import { OUTPOST_VERSION } from "../../../src/config/version.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../../src/protocol/cbor.ts";
import { encodeUpgradeOrder, type UpgradeOrder } from "../../../src/protocol/upgrade-messages.ts";
import { signRelease } from "../../../src/release/signature.ts";
import { waitFor } from "../../helpers/ports.ts";
import { createTestCa } from "../../helpers/tls.ts";

const keys = generateKeyPairSync("ed25519");
const other = generateKeyPairSync("ed25519");
const enc = createEncoder();
const arch = process.arch as "x64" | "arm64";
const binary = new Uint8Array(randomBytes(300_000));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
let served: Uint8Array = binary;
const requests: { path: string; authorization: string | null }[] = [];
let server: ReturnType<typeof Bun.serve>;
const dirs: string[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      requests.push({ path: new URL(req.url).pathname, authorization: req.headers.get("Authorization") });
      return new Response(served);
    },
  });
});
afterAll(() => server.stop(true));
afterEach(() => {
  served = binary;
  requests.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const version = "99.0.0";
function order(o: Partial<UpgradeOrder> = {}, signedBy = keys.privateKey): UpgradeOrder {
  const v = o.version ?? version;
  return {
    rollout: "r1",
    version: v,
    force: false,
    deadlineMs: 60_000,
    download: `/svc/fleet/releases/${v}/binaries`,
    httpPort: server.port,
    tls: false,
    binaries: { [arch]: { size: binary.length, sha256: sha(binary), signature: signRelease(signedBy, { version: v, arch, size: binary.length, sha256: sha(binary) }) } },
    ...o,
  };
}

function agent(o: { publicKey?: boolean; caFile?: string } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "outpost-upgrader-"));
  dirs.push(dataDir);
  const handOvers: { version: string; deadlineMs: number }[] = [];
  let reports = 0;
  const u = new Upgrader({
    dataDir,
    publicKey: o.publicKey === false ? undefined : keys.publicKey,
    access: { brokerUrl: "mqtt://127.0.0.1:1883", username: "web-1", password: "pw", caFile: o.caFile },
    dec: createDecoder(),
    log: createLogger("silent"),
    reported: () => reports++,
    handOver: async (h) => void handOvers.push(h),
    compiled: true,
  });
  const send = (x: UpgradeOrder) => u.onOrder(encodeUpgradeOrder(enc, x));
  return { u, dataDir, handOvers, send, reports: () => reports, bin: (name: string) => join(dataDir, "bin", name) };
}

const settled = (a: ReturnType<typeof agent>) => waitFor("the order's outcome", () => (a.handOvers.length > 0 || a.u.report()?.state === "failed" ? true : undefined), 10_000, 20);

describe("upgrade orders on the agent", () => {
  it("downloads with the agent's credential, checks, and hands a private executable over to the probation", async () => {
    const a = agent();
    a.send(order());
    await settled(a);
    expect(requests).toEqual([{ path: `/svc/fleet/releases/${version}/binaries/${arch}`, authorization: `Basic ${Buffer.from("web-1:pw").toString("base64")}` }]);
    expect(a.handOvers).toEqual([{ version, deadlineMs: 60_000 }]);
    expect(Buffer.compare(readFileSync(a.bin("outpost-agent.next")), Buffer.from(binary))).toBe(0);
    expect(statSync(a.bin("outpost-agent.next")).mode & 0o777).toBe(0o700);
    expect(readUpgradeState(a.dataDir).last).toMatchObject({ rollout: "r1", version, from: OUTPOST_VERSION, state: "probation" });
    expect(a.u.report()).toMatchObject({ state: "installing", version, rollout: "r1" });
    // Its own version's order, and the same order again, do nothing.
    a.send(order({ version: OUTPOST_VERSION }));
    a.send(order());
    expect(requests.length).toBe(1);
  });

  const refusals: [string, () => void, (a: ReturnType<typeof agent>) => void, RegExp][] = [
    ["bytes that are not the ones signed", () => (served = new Uint8Array(randomBytes(binary.length))), (a) => a.send(order()), /^refused: the download's SHA-256 is [0-9a-f]{64}, not [0-9a-f]{64} as ordered$/],
    ["a signature of another key", () => {}, (a) => a.send(order({}, other.privateKey)), /^refused: the signature is not the pinned release key's$/],
    ["more bytes than ordered", () => (served = new Uint8Array(binary.length + 10)), (a) => a.send(order()), /larger than the 300000 bytes ordered/],
    ["a downgrade without force", () => {}, (a) => a.send(order({ version: "0.0.1" })), new RegExp(`^0\\.0\\.1 is older than ${OUTPOST_VERSION.replaceAll(".", "\\.")}: a downgrade needs force$`)],
    ["an agent without a pinned key", () => {}, (a) => a.send(order()), /^no --release-public-key is pinned/],
  ];
  for (const [what, setUp, send, reason] of refusals) {
    it(`refuses ${what}, leaving nothing behind, once`, async () => {
      setUp();
      const a = agent({ publicKey: what !== "an agent without a pinned key" });
      send(a);
      await settled(a);
      expect(a.handOvers).toEqual([]);
      expect(a.u.report()).toMatchObject({ state: "failed", reason: expect.stringMatching(reason) });
      expect(a.u.report()?.rolledBack).toBeUndefined();
      expect(existsSync(a.bin("outpost-agent.next")) || existsSync(a.bin("outpost-agent.download"))).toBe(false);
      expect(existsSync(join(a.dataDir, "bin")) ? readdirSync(join(a.dataDir, "bin")) : []).toEqual([]);
      const n = requests.length;
      send(a);
      await Bun.sleep(100);
      expect(requests.length).toBe(n);
      expect(a.reports()).toBeGreaterThan(0);
    });
  }

  it("downloads over HTTPS, trusting the --ca-file it trusts for the broker", async () => {
    const ca = createTestCa();
    const { certFile, keyFile } = ca.issue("collector", { cn: "127.0.0.1", server: true });
    const https = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { cert: Bun.file(certFile), key: Bun.file(keyFile) }, fetch: () => new Response(binary) });
    try {
      const trusting = agent({ caFile: ca.caFile });
      trusting.send(order({ httpPort: https.port, tls: true }));
      await settled(trusting);
      expect(trusting.handOvers.map((h) => h.version)).toEqual([version]);
      // Without the CA the collector's certificate is not trusted: nothing is run.
      const other = agent();
      other.send(order({ httpPort: https.port, tls: true }));
      await waitFor("the refusal", () => (other.u.report()?.state === "failed" ? true : undefined), 20_000, 50);
      expect(other.u.report()?.reason).toMatch(/^the download failed: the collector's certificate is not trusted \(\w+\): give its CA with --ca-file$/);
      expect(other.handOvers).toEqual([]);
    } finally {
      https.stop(true);
      rmSync(ca.dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("takes a forced downgrade", async () => {
    const a = agent();
    const v = "0.0.1";
    const o = order({ version: v, force: true });
    o.binaries[arch]!.signature = signRelease(keys.privateKey, { version: v, arch, size: binary.length, sha256: sha(binary) });
    a.send(o);
    await settled(a);
    expect(a.handOvers.map((h) => h.version)).toEqual([v]);
  });
});
