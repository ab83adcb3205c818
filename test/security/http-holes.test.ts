import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/ports.ts";
import { readUntil } from "../helpers/program.ts";
import { type SecuredCollector, securedCollector, type UserName } from "./setup.ts";

/**
 * Issue 15 item 7: the holes found in isolation tests, each shown closed — tenant lists on the
 * alerts admin paths and watch streams, /ws/events?tenantId= of another tenant, CORS for any
 * origin — plus the websocket's four cases.
 */
let s: SecuredCollector;

beforeAll(async () => {
  s = await securedCollector({ "auth-failures": 0, "watch-heartbeat": 100 });
  for (const t of ["A", "B"]) {
    const res = await s.col.req("/svc/alerts/events", { method: "POST", json: { id: `ev-${t}`, category: "test", text: `event of ${t}` }, tenant: t, authorization: s.as("root") });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await s.close();
});

const adminEvents = (user: UserName, tenants: string) => s.col.req("/svc/alerts/admin/events", { tenant: tenants, authorization: s.as(user) });

describe("a tenant list in the header of the alerts admin paths", () => {
  it("returns nothing of B to a credential of A, nor to a non-admin holding both", async () => {
    for (const user of ["alice", "carol"] as const) {
      const res = await adminEvents(user, "A,B");
      expect(res.status).toBe(403);
      expect(((await res.json()) as { errorMsg: string }).errorMsg).toMatch(/admin credential|does not hold/);
    }
    // Nor is the list a way around on the tenant paths.
    expect((await s.col.req("/svc/alerts/events", { tenant: "A,B", authorization: s.as("carol") })).status).toBe(403);
  });

  it("serves both tenants to an admin credential", async () => {
    const res = await adminEvents("root", "A,B");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }[]).map((e) => e.id).sort()).toEqual(["ev-A", "ev-B"]);
  });

  it("the admin watch streams too", async () => {
    const refused = await s.col.req("/svc/alerts/admin/watch/events", { tenant: "A,B", authorization: s.as("carol") });
    expect(refused.status).toBe(403);
    const res = await s.col.req("/svc/alerts/admin/watch/events", { tenant: "A,B", authorization: s.as("root") });
    expect(res.status).toBe(200);
    await readUntil(res.body!, (t) => t.includes("ev-A") && t.includes("ev-B"), "both tenants' events came");
    await res.body!.cancel();
  });
});

/** A websocket on /ws/events with headers (Bun's client can send them); resolves its frames as they come. */
function socket(query: string, headers: Record<string, string>) {
  const ws = new WebSocket(`${s.col.url.replace("http", "ws")}/svc/inventory/ws/events?${query}`, { headers } as unknown as string[]);
  const frames: string[] = [];
  ws.onmessage = (e) => frames.push(String(e.data));
  const opened = new Promise<boolean>((resolve) => {
    ws.onopen = () => resolve(true);
    ws.onerror = () => resolve(false);
    ws.onclose = () => resolve(false);
  });
  return { ws, frames, opened };
}

/** The HTTP answer to the same request without the upgrade: what a refused socket got. */
const handshake = (query: string, authorization: string | null, tenant: string | null = null) =>
  s.col.req(`/svc/inventory/ws/events?${query}`, { authorization, tenant });

describe("/ws/events", () => {
  it("no or wrong credentials: 401; another tenant's tenantId: 403; a tenantId contradicting the header: 400", async () => {
    expect((await handshake("tenantId=A", null)).status).toBe(401);
    expect((await handshake("tenantId=A", `Basic ${btoa("alice:wrong")}`)).status).toBe(401);
    expect((await handshake("tenantId=B", s.as("alice"))).status).toBe(403);
    expect((await handshake("tenantId=A", s.as("bob"))).status).toBe(403);
    expect((await handshake("tenantId=B", s.as("alice"), "A")).status).toBe(400);
    expect((await socket("tenantId=B", { Authorization: s.as("alice") }).opened)).toBe(false);
    expect((await socket("tenantId=A", {}).opened)).toBe(false);
  });

  it("streams the credential's tenant only: by tenantId, by header, or its one tenant", async () => {
    const byQuery = socket("tenantId=A&type=feed", { Authorization: s.as("alice") });
    const byHeader = socket("type=feed", { Authorization: s.as("alice"), "Svc-Tenant": "A" });
    const implicit = socket("type=feed", { Authorization: s.as("alice") });
    const theirs = socket("tenantId=B&type=feed", { Authorization: s.as("bob") });
    for (const x of [byQuery, byHeader, implicit, theirs]) expect(await x.opened).toBe(true);
    for (const t of ["B", "A"]) {
      const res = await s.col.req("/svc/inventory/entity/feed", { method: "POST", json: { id: `ws-${t}` }, tenant: t, authorization: s.as("root") });
      expect(res.status).toBe(201);
    }
    for (const x of [byQuery, byHeader, implicit]) {
      await waitFor("A's event", () => (x.frames.length > 0 ? true : undefined));
      expect(x.frames.map((f) => JSON.parse(f).id)).toEqual(["ws-A"]);
    }
    await waitFor("B's event", () => (theirs.frames.length > 0 ? true : undefined));
    expect(theirs.frames.map((f) => JSON.parse(f).id)).toEqual(["ws-B"]);
    for (const x of [byQuery, byHeader, implicit, theirs]) x.ws.close();
  });
});

describe("CORS with an auth file", () => {
  it("allows no origin: a page elsewhere cannot use a browser's credentials for this server", async () => {
    const pre = await s.col.req("/svc/metrics/gauges", {
      method: "OPTIONS",
      authorization: null,
      tenant: null,
      headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "authorization,hawkular-tenant" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    // A request from a disallowed origin is refused before any route (400, as upstream's CORS filter did).
    const get = await s.col.req("/svc/metrics/gauges", { tenant: "A", authorization: s.as("alice"), headers: { Origin: "http://evil.example" } });
    expect(get.status).toBe(400);
    expect(((await get.json()) as { errorMsg?: string }).errorMsg).toBeTruthy();
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });
});
