import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, bearer } from "../helpers/auth.ts";
import { remoteWriteBody } from "../helpers/remote-write.ts";
import { type SecuredCollector, securedCollector, type UserName } from "./setup.ts";

/**
 * Issue 15 item 8: for every route family of every interface, over real HTTP, the four cases —
 * no credentials, wrong credentials, another tenant's credentials, the right credentials.
 * Each family targets tenant A (the self-metrics family its own tenant); "other" is a valid
 * credential that does not hold the target (for admin paths: a tenant credential, not admin).
 */
interface Family {
  name: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  /** A body that is not JSON (remote write, line protocol). */
  raw?: { body: Uint8Array | string; headers: Record<string, string> };
  /** Send the tenant header (Svc-Tenant: A). */
  tenant?: boolean;
  right: UserName;
  other: UserName;
  /** Statuses of a served request with the right credential. */
  ok: number[];
  /** A long-lived stream: check the status, then let go. */
  stream?: boolean;
  /** The right tenant's bearer token works here too (not for admin-only and self-metrics paths). */
  token?: boolean;
}

const now = Date.now();
const A = { right: "alice", other: "bob", tenant: true, token: true } as const;
const ADMIN = { right: "root", other: "alice", tenant: true, token: false } as const;

const FAMILIES: Family[] = [
  { name: "metrics: definitions", method: "GET", path: "/svc/metrics/metrics", ok: [200], ...A },
  { name: "metrics: raw write", method: "POST", path: "/svc/metrics/gauges/raw", body: [{ id: "w", dataPoints: [{ timestamp: now, value: 1 }] }], ok: [200], ...A },
  { name: "metrics: raw read", method: "GET", path: "/svc/metrics/gauges/g/raw", ok: [200], ...A },
  { name: "metrics: stats", method: "GET", path: `/svc/metrics/gauges/g/stats?buckets=1&start=${now - 60_000}&end=${now + 1}`, ok: [200], ...A },
  { name: "metrics: POST query (Grafana)", method: "POST", path: "/svc/metrics/gauges/raw/query", body: { ids: ["g"], start: now - 60_000, end: now + 1 }, ok: [200], ...A },
  { name: "metrics: tenant creation", method: "POST", path: "/svc/metrics/tenants", body: { id: "A" }, ok: [201, 409], ...A },
  { name: "metrics under /hawkular", method: "GET", path: "/hawkular/metrics/gauges", ok: [200], ...A },
  { name: "alerts: triggers", method: "GET", path: "/svc/alerts/triggers", ok: [200, 204], ...A },
  { name: "alerts: alerts", method: "GET", path: "/svc/alerts", ok: [200, 204], ...A },
  { name: "alerts: events", method: "GET", path: "/svc/alerts/events", ok: [200, 204], ...A },
  { name: "alerts: actions", method: "GET", path: "/svc/alerts/actions", ok: [200, 204], ...A },
  { name: "alerts: export", method: "GET", path: "/svc/alerts/export", ok: [200], ...A },
  { name: "alerts: watch stream", method: "GET", path: "/svc/alerts/watch", ok: [200], stream: true, ...A },
  { name: "alerts: admin alerts", method: "GET", path: "/svc/alerts/admin/alerts", ok: [200, 204], ...ADMIN },
  { name: "alerts: admin events", method: "GET", path: "/svc/alerts/admin/events", ok: [200, 204], ...ADMIN },
  { name: "alerts: admin watch stream", method: "GET", path: "/svc/alerts/admin/watch/events", ok: [200], stream: true, ...ADMIN },
  { name: "inventory: entity read", method: "GET", path: "/svc/inventory/entity/f;f1", ok: [200], ...A },
  { name: "inventory: entity create", method: "POST", path: "/svc/inventory/entity/feed", body: { id: "f2" }, ok: [201, 409], ...A },
  { name: "inventory: traversal", method: "GET", path: "/svc/inventory/traversal/type=f", ok: [200], ...A },
  { name: "inventory: interface root", method: "GET", path: "/svc/inventory", ok: [200], ...A },
  { name: "datamining: subscriptions", method: "GET", path: "/svc/datamining/metrics", ok: [200, 204], ...A },
  { name: "prometheus: query, tenant in the path", method: "GET", path: "/prometheus/A/api/v1/query?query=g", ok: [200], ...A, tenant: false },
  { name: "prometheus: query, tenant header", method: "GET", path: "/api/v1/query?query=g", ok: [200], ...A },
  { name: "prometheus: labels", method: "GET", path: "/prometheus/A/api/v1/labels", ok: [200], ...A, tenant: false },
  {
    name: "prometheus: remote write",
    method: "POST",
    path: "/prometheus/A/api/v1/write",
    raw: { body: remoteWriteBody([{ labels: { __name__: "rw", job: "j" }, samples: [[now, 1]] }]), headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" } },
    ok: [204],
    ...A,
    tenant: false,
  },
  { name: "influx: line protocol write", method: "POST", path: "/influx/A/write?precision=ms", raw: { body: `lp,host=h v=1 ${now}`, headers: { "Content-Type": "text/plain" } }, ok: [204], ...A, tenant: false },
  { name: "collector self-metrics /metrics", method: "GET", path: "/metrics", ok: [200], right: "scraper", other: "alice", tenant: false, token: false },
];

let s: SecuredCollector;

beforeAll(async () => {
  // Many wrong attempts come from 127.0.0.1 here: the slow-down has its own test.
  s = await securedCollector({ "auth-failures": 0, "watch-heartbeat": 100 });
  const seed = (path: string, body: unknown) => s.col.req(path, { method: "POST", json: body, tenant: "A", authorization: s.as("root") });
  expect((await seed("/svc/metrics/gauges/raw", [{ id: "g", dataPoints: [{ timestamp: now - 1000, value: 5 }] }])).status).toBe(200);
  expect((await seed("/svc/inventory/entity/feed", { id: "f1" })).status).toBe(201);
});
afterAll(async () => {
  await s.close();
});

async function call(f: Family, authorization: string | null): Promise<Response> {
  const res = await s.col.req(f.path, { method: f.method, json: f.body, body: f.raw?.body, headers: f.raw?.headers, tenant: f.tenant ? "A" : null, authorization });
  // A served stream never ends: its status is what counts. A refusal is a plain JSON answer.
  if (f.stream && res.status === 200) await res.body?.cancel();
  return res;
}

async function expectRefused(res: Response, status: 401 | 403) {
  expect(res.status).toBe(status);
  expect(typeof ((await res.json()) as { errorMsg?: unknown }).errorMsg).toBe("string");
  if (status === 401) expect(res.headers.get("WWW-Authenticate")).toMatch(/^Basic realm="outpost".*Bearer realm="outpost"/);
}

describe.each(FAMILIES)("$name ($method $path)", (f) => {
  it("no credentials: 401 with WWW-Authenticate and an errorMsg", async () => {
    await expectRefused(await call(f, null), 401);
  });

  it("wrong credentials (password, token, malformed header): 401", async () => {
    await expectRefused(await call(f, basic(f.right, "not-the-password")), 401);
    await expectRefused(await call(f, basic("nobody", "x")), 401);
    await expectRefused(await call(f, bearer("outpost_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 401);
    await expectRefused(await call(f, "Digest nonsense"), 401);
  });

  it("another tenant's credentials: 403 with an errorMsg", async () => {
    await expectRefused(await call(f, s.as(f.other)), 403);
    if (f.token) await expectRefused(await call(f, s.tokenB), 403);
    // An agent's MQTT credential opens no HTTP route.
    await expectRefused(await call(f, s.as("edge")), 403);
  });

  it("the right credentials: served", async () => {
    expect(f.ok).toContain((await call(f, s.as(f.right))).status);
    if (f.token) expect(f.ok).toContain((await call(f, s.tokenA)).status);
    // An admin holds every tenant.
    expect(f.ok).toContain((await call(f, s.as("root"))).status);
  });
});

describe("open paths", () => {
  it.each(["/health", "/svc/metrics/status", "/hawkular/metrics/status", "/svc/alerts/status"])("GET %s needs no credentials", async (path) => {
    const res = await s.col.req(path, { authorization: null });
    expect(res.status).toBe(200);
  });

  it("but a path only looking like one is not open", async () => {
    expect((await s.col.req("/svc/metrics/status/../gauges", { authorization: null, tenant: "A" })).status).toBe(401);
    expect((await s.col.req("/svc/metrics/status", { method: "POST", authorization: null })).status).toBe(401);
  });
});

describe("what a credential sees of the tenant list", () => {
  it("GET /tenants lists the tenants the credential holds; an admin sees all", async () => {
    await s.col.req("/svc/metrics/tenants", { method: "POST", json: { id: "B" }, authorization: s.as("root") });
    const ids = async (user: UserName) => ((await (await s.col.req("/svc/metrics/tenants", { authorization: s.as(user), tenant: null })).json()) as { id: string }[]).map((t) => t.id).sort();
    expect(await ids("alice")).toEqual(["A"]);
    expect(await ids("carol")).toEqual(["A", "B"]);
    expect(await ids("root")).toEqual(expect.arrayContaining(["A", "B"]));
  });
});
