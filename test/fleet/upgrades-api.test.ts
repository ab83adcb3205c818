/**
 * The fleet interface's releases and rollouts over real HTTP, with agents played by MQTT clients
 * on the embedded broker: uploads checked (admin only, size, SHA-256, architecture, signature),
 * binaries downloaded with an agent's own credential, rollouts ordering the canary, then the
 * rest, pausing at the first failure, resuming, refusing a downgrade without force; tenants apart.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { encodeStatus, type Status } from "../../src/protocol/control-messages.ts";
import { agentClientId, buildTopic } from "../../src/protocol/topics.ts";
import { decodeUpgradeOrder, type UpgradeOrder } from "../../src/protocol/upgrade-messages.ts";
import { formatPublicKey, signRelease } from "../../src/release/signature.ts";
import { basic, bearer, writeTestAuthFile } from "../helpers/auth.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const enc = createEncoder();
const dec = createDecoder();
const keys = generateKeyPairSync("ed25519");
const otherKeys = generateKeyPairSync("ed25519");
const FEEDS = ["a", "b", "c"];

/** A fake x86-64 (or ARM64) executable: an ELF header, then random bytes over three store pieces. */
function fakeBinary(machine: 62 | 183, size = 2 * 1024 * 1024 + 777): Uint8Array {
  const b = new Uint8Array(randomBytes(size));
  b.set([0x7f, 0x45, 0x4c, 0x46], 0);
  b[18] = machine;
  b[19] = 0;
  return b;
}
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const sign = (version: string, arch: "x64" | "arm64", b: Uint8Array, key = keys.privateKey) => signRelease(key, { version, arch, size: b.length, sha256: sha(b) });

let col: TestCollector;
let port: number;
let admin = "";
let t1 = "";
let t2 = "";
const agents = new Map<string, { c: MqttClient; orders: (UpgradeOrder | "cleared")[] }>();

beforeAll(async () => {
  const auth = await writeTestAuthFile(
    FEEDS.map((f) => ({ name: `agent-${f}`, password: `pw-${f}`, agent: { tenant: "t1", feed: f } })),
    [{ admin: true }, { tenants: ["t1"] }, { tenants: ["t2"] }],
  );
  [admin, t1, t2] = auth.tokens.map(bearer) as [string, string, string];
  port = await freePort();
  col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", "auth-file": auth.path, "release-public-key": formatPublicKey(keys.publicKey) } as never, undefined, t1);
  for (const f of FEEDS) {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0, clientId: agentClientId("t1", f), username: `agent-${f}`, password: `pw-${f}` });
    const orders: (UpgradeOrder | "cleared")[] = [];
    c.on("message", (_t, p) => orders.push(p.length === 0 ? "cleared" : decodeUpgradeOrder(dec, p)));
    await c.subscribeAsync(buildTopic("svc", { tenant: "t1", feed: f, kind: "upgrade" }), { qos: 1 });
    agents.set(f, { c, orders });
  }
});
afterAll(async () => {
  for (const a of agents.values()) await a.c.endAsync();
  await col.close();
});

async function status(feed: string, s: Partial<Status>): Promise<void> {
  const full: Status = { state: "online", session: 1, at: Date.now(), arch: "x64", ...s };
  await agents.get(feed)!.c.publishAsync(buildTopic("svc", { tenant: "t1", feed, kind: "status" }), Buffer.from(encodeStatus(enc, full)), { qos: 1, retain: true });
}

async function upload(version: string, arch: string, b: Uint8Array, headers: Record<string, string>, authorization = admin): Promise<Response> {
  return col.req(`/svc/fleet/releases/${version}/binaries/${arch}`, { method: "PUT", body: b, tenant: null, authorization, headers: { "Content-Type": "application/octet-stream", ...headers } });
}

async function rollout(id: string) {
  return body(await col.req(`/svc/fleet/rollouts/${id}`));
}

const x64v2 = fakeBinary(62);

describe("agent releases", () => {
  it("are taken from an admin only, signed by the release key, of the architecture they claim", async () => {
    const sig = sign("0.2.0", "x64", x64v2);
    expect((await upload("0.2.0", "x64", x64v2, { "Outpost-Signature": sig }, t1)).status).toBe(403);
    const unsigned = await upload("0.2.0", "x64", x64v2, {});
    expect([unsigned.status, (await body(unsigned)).errorMsg]).toEqual([400, expect.stringMatching(/signature is missing.*Outpost-Signature/)]);
    const foreign = await upload("0.2.0", "x64", x64v2, { "Outpost-Signature": sign("0.2.0", "x64", x64v2, otherKeys.privateKey) });
    expect([foreign.status, (await body(foreign)).errorMsg]).toEqual([400, expect.stringMatching(/not the release key's signature of version 0\.2\.0, x64/)]);
    // A signature of the same bytes as another version does not pass either.
    expect((await upload("0.2.1", "x64", x64v2, { "Outpost-Signature": sig })).status).toBe(400);
    const arm = fakeBinary(183, 1000);
    const wrongArch = await upload("0.2.0", "x64", arm, { "Outpost-Signature": sign("0.2.0", "x64", arm) });
    expect((await body(wrongArch)).errorMsg).toBe("The binary is an arm64 executable, not x64");
    const badSha = await upload("0.2.0", "x64", x64v2, { "Outpost-Signature": sig, "Outpost-Sha256": "0".repeat(64) });
    expect((await body(badSha)).errorMsg).toMatch(/SHA-256 is [0-9a-f]{64}, not 0{64}/);
    expect((await upload("0.2.0", "riscv", x64v2, { "Outpost-Signature": sig })).status).toBe(400);
    expect((await upload("latest", "x64", x64v2, { "Outpost-Signature": sig })).status).toBe(400);

    const ok = await upload("0.2.0", "x64", x64v2, { "Outpost-Signature": sig, "Outpost-Sha256": sha(x64v2) });
    expect(ok.status).toBe(201);
    expect(await body(ok)).toMatchObject({ version: "0.2.0", arch: "x64", size: x64v2.length, sha256: sha(x64v2), signature: sig, uploadedBy: expect.any(String) });
    expect((await upload("0.2.0", "x64", x64v2, { "Outpost-Signature": sig })).status).toBe(409);
    expect((await upload("0.2.0", "arm64", arm, { "Outpost-Signature": sign("0.2.0", "arm64", arm) })).status).toBe(201);
    const list = await body(await col.req("/svc/fleet/releases", { tenant: null }));
    expect(list).toEqual([{ version: "0.2.0", binaries: [expect.objectContaining({ arch: "arm64", size: 1000 }), expect.objectContaining({ arch: "x64" })] }]);
  });

  it("are downloaded by agents with their own credential, which reaches nothing else", async () => {
    const res = await fetch(`${col.url}/svc/fleet/releases/0.2.0/binaries/x64`, { headers: { Authorization: basic("agent-a", "pw-a") } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Outpost-Sha256")).toBe(sha(x64v2));
    expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), Buffer.from(x64v2))).toBe(0);
    expect((await fetch(`${col.url}/svc/fleet/releases`, { headers: { Authorization: basic("agent-a", "pw-a") } })).status).toBe(403);
    expect((await fetch(`${col.url}/svc/metrics/gauges`, { headers: { Authorization: basic("agent-a", "pw-a"), "Svc-Tenant": "t1" } })).status).toBe(403);
    expect((await fetch(`${col.url}/svc/fleet/releases/0.2.0/binaries/x64`, { headers: { Authorization: basic("agent-a", "wrong") } })).status).toBe(401);
    expect((await fetch(`${col.url}/svc/fleet/releases/0.9.0/binaries/x64`, { headers: { Authorization: basic("agent-a", "pw-a") } })).status).toBe(404);
  });
});

describe("rollouts", () => {
  let id = "";

  it("refuse what cannot be rolled out, with the reason", async () => {
    for (const f of FEEDS) await status(f, { version: "0.1.0", tags: { site: f === "c" ? "lyon" : "paris" } });
    await waitFor("three reports", async () => ((await body(await col.req("/svc/fleet/upgrades"))) as unknown[]).length === 3 || undefined);
    const post = (json: unknown, tenant = "t1", authorization = t1) => col.req("/svc/fleet/rollouts", { method: "POST", json, tenant, authorization });
    const refusals: [unknown, number, RegExp][] = [
      [{ version: "0.3.0" }, 404, /No release 0\.3\.0/],
      [{ version: "0.2.0", batches: [50] }, 400, /last 100/],
      [{ version: "0.2.0", feeds: ["zz"] }, 400, /No agent of feed zz has reported/],
      [{ version: "0.2.0", tags: { site: "rome" } }, 400, /No feed of tenant t1 matches/],
      [{ version: "0.2.0", deadline: "5m" }, 400, /not a duration/],
      [{ version: "0.2.0", surprise: 1 }, 400, /surprise/],
    ];
    for (const [json, code, msg] of refusals) {
      const res = await post(json);
      expect([res.status, (await body(res)).errorMsg], JSON.stringify(json)).toEqual([code, expect.stringMatching(msg)]);
    }
    // Another tenant's credential reaches neither t1's rollouts nor its feeds.
    expect((await post({ version: "0.2.0" }, "t1", t2)).status).toBe(403);
    expect((await post({ version: "0.2.0" }, "t2", t2)).status).toBe(400);
  });

  it("order the canary first, then the next batch once it runs the version", async () => {
    const res = await col.req("/svc/fleet/rollouts", { method: "POST", json: { version: "0.2.0", canary: 1, batches: [100], deadline: "30s" } });
    expect(res.status).toBe(201);
    const r = await body(res);
    id = r.id;
    expect(res.headers.get("Location")).toBe(`${col.url}/svc/fleet/rollouts/${id}`);
    expect(r.targets.map((t: { feed: string; batch: number; state: string }) => `${t.feed}:${t.batch}:${t.state}`)).toEqual(["a:0:ordered", "b:1:pending", "c:1:pending"]);
    const order = await waitFor("a's order", () => agents.get("a")!.orders[0]);
    expect(order).toEqual({
      rollout: id,
      version: "0.2.0",
      force: false,
      deadlineMs: 30_000,
      download: "/svc/fleet/releases/0.2.0/binaries",
      httpPort: new URL(col.url).port ? Number(new URL(col.url).port) : 80,
      tls: false,
      binaries: { x64: { size: x64v2.length, sha256: sha(x64v2), signature: sign("0.2.0", "x64", x64v2) }, arm64: expect.objectContaining({ size: 1000 }) },
    });
    expect(agents.get("b")!.orders).toEqual([]);
    // A feed in a rollout under way is in no second one.
    const busy = await col.req("/svc/fleet/rollouts", { method: "POST", json: { version: "0.2.0", feeds: ["a"] } });
    expect([busy.status, (await body(busy)).errorMsg]).toEqual([409, expect.stringMatching(/a \(rollout .*\) is already in a rollout/)]);

    await status("a", { version: "0.2.0", session: 2, upgrade: { state: "installed", version: "0.2.0", rollout: id, at: Date.now() } });
    await waitFor("b's and c's orders", () => (agents.get("b")!.orders.length > 0 && agents.get("c")!.orders.length > 0) || undefined);
    expect((await rollout(id)).batch).toBe(1);
  });

  it("pause at the first failure, withdraw the orders not begun, and go on when resumed", async () => {
    await status("b", { version: "0.1.0", session: 2, upgrade: { state: "failed", version: "0.2.0", rollout: id, reason: "exited with code 3 at start", rolledBack: true, at: Date.now() } });
    const paused = await waitFor("the pause", async () => {
      const r = await rollout(id);
      return r.state === "paused" ? r : undefined;
    });
    expect(paused.reason).toBe("b failed: exited with code 3 at start (rolled back)");
    await waitFor("c's order withdrawn", () => agents.get("c")!.orders.at(-1) === "cleared" || undefined);
    const upgrades = await body(await col.req("/svc/fleet/upgrades"));
    expect(upgrades.find((u: { feed: string }) => u.feed === "b")).toMatchObject({
      version: "0.1.0",
      upgrade: { state: "failed", rolledBack: true },
      rollout: { id, version: "0.2.0", state: "paused", target: { batch: 1, state: "failed", reason: "exited with code 3 at start (rolled back)" } },
    });
    // A version being rolled out stays.
    expect((await col.req("/svc/fleet/releases/0.2.0", { method: "DELETE", tenant: null, authorization: admin })).status).toBe(409);
    expect((await col.req(`/svc/fleet/rollouts/${id}/pause`, { method: "POST" })).status).toBe(409);

    const resumed = await col.req(`/svc/fleet/rollouts/${id}/resume`, { method: "POST" });
    expect([resumed.status, (await body(resumed)).state]).toEqual([200, "running"]);
    await waitFor("c's order again", () => (agents.get("c")!.orders.at(-1) !== "cleared" && agents.get("c")!.orders.length >= 3) || undefined);
    await status("c", { version: "0.2.0", session: 2 });
    const done = await waitFor("completion", async () => {
      const r = await rollout(id);
      return r.state === "completed" ? r : undefined;
    });
    expect(done.targets.map((t: { feed: string; state: string }) => `${t.feed}:${t.state}`)).toEqual(["a:succeeded", "b:failed", "c:succeeded"]);
    // Other tenants see none of it.
    expect((await col.req("/svc/fleet/rollouts", { tenant: "t2", authorization: t2 })).status).toBe(204);
    expect((await col.req("/svc/fleet/rollouts", { tenant: "t1", authorization: t2 })).status).toBe(403);
  });

  it("refuse a downgrade unless forced", async () => {
    const old = fakeBinary(62, 5000);
    expect((await upload("0.1.5", "x64", old, { "Outpost-Signature": sign("0.1.5", "x64", old) })).status).toBe(201);
    const refused = await col.req("/svc/fleet/rollouts", { method: "POST", json: { version: "0.1.5", feeds: ["a", "c"] } });
    expect([refused.status, (await body(refused)).errorMsg]).toEqual([409, 'a (0.2.0), c (0.2.0) run a newer version than 0.1.5: a downgrade needs "force": true']);
    const forced = await col.req("/svc/fleet/rollouts", { method: "POST", json: { version: "0.1.5", feeds: ["a"], force: true } });
    expect(forced.status).toBe(201);
    const order = await waitFor("the forced order", () => agents.get("a")!.orders.find((o) => o !== "cleared" && o.version === "0.1.5"));
    expect(order).toMatchObject({ force: true, binaries: { x64: { size: 5000 } } });
    expect((await col.req(`/svc/fleet/rollouts/${(await body(forced)).id}/pause`, { method: "POST" })).status).toBe(200);
  });
});

describe("a collector without --release-public-key", () => {
  it("takes no release, saying why", async () => {
    const plain = await startTestCollector();
    try {
      const res = await plain.req("/svc/fleet/releases/0.2.0/binaries/x64", { method: "PUT", body: x64v2, tenant: null, headers: { "Content-Type": "application/octet-stream", "Outpost-Signature": sign("0.2.0", "x64", x64v2) } });
      expect([res.status, (await body(res)).errorMsg]).toEqual([409, expect.stringMatching(/no --release-public-key/)]);
    } finally {
      await plain.close();
    }
  });
});
