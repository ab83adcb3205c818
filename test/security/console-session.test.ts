import { afterEach, describe, expect, it } from "vitest";
import { readAuthFile, writeAuthFile } from "../../collector/auth/auth-file.ts";
import { ConsoleSessions } from "../../src/http/console/sessions.ts";
import { CONSOLE_HEADER, CSRF_HEADER, SESSION_COOKIE } from "../../src/http/console/names.ts";
import { type SecuredCollector, securedCollector, USERS } from "./setup.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function secured(values: Record<string, unknown> = {}): Promise<SecuredCollector> {
  const s = await securedCollector(values);
  open.push(s);
  return s;
}

interface Login {
  res: Response;
  cookie?: string;
  setCookie: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  body: any;
}

async function login(s: SecuredCollector, user: string, password: string, headers: Record<string, string> = {}): Promise<Login> {
  const res = await fetch(`${s.col.url}/console/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", [CONSOLE_HEADER]: "1", ...headers },
    body: JSON.stringify({ user, password }),
  });
  const setCookie = res.headers.get("Set-Cookie") ?? "";
  const cookie = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
  return { res, cookie, setCookie, body: await res.json() };
}

/** A request as the console's page makes it: the session cookie, the console marker, the tenant. */
function asPage(s: SecuredCollector, path: string, cookie: string, init: RequestInit & { tenant?: string; csrf?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("Cookie", `${SESSION_COOKIE}=${cookie}`);
  headers.set(CONSOLE_HEADER, "1");
  if (init.tenant) headers.set("Svc-Tenant", init.tenant);
  if (init.csrf) headers.set(CSRF_HEADER, init.csrf);
  return fetch(`${s.col.url}${path}`, { ...init, headers });
}

const point = (v: number) => JSON.stringify([{ timestamp: Date.now(), value: v }]);

describe("console login with an auth file", () => {
  it("the page and its assets need no credentials; the session says a login is needed", async () => {
    const s = await secured();
    const page = await fetch(`${s.col.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="\.\/(console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${s.col.url}/${script}`)).status).toBe(200);
    const session = await fetch(`${s.col.url}/console/api/session`);
    expect(await session.json()).toMatchObject({ authRequired: true, authenticated: false });
    // Everything else still needs credentials.
    expect((await fetch(`${s.col.url}/svc/fleet/feeds`, { headers: { "Svc-Tenant": "A" } })).status).toBe(401);
  });

  it("a right password opens a session: HttpOnly, SameSite=Strict cookie, the user's tenants, a CSRF token", async () => {
    const s = await secured();
    const l = await login(s, "carol", USERS.carol.password);
    expect(l.res.status).toBe(200);
    expect(l.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(l.setCookie).toMatch(/HttpOnly/i);
    expect(l.setCookie).toMatch(/SameSite=Strict/i);
    expect(l.setCookie).toMatch(/Path=\//);
    // Plain HTTP here: a Secure cookie would not come back.
    expect(l.setCookie).not.toMatch(/Secure/i);
    expect(l.body).toMatchObject({ authRequired: true, authenticated: true, user: "carol", admin: false, tenants: ["A", "B"] });
    expect(typeof l.body.csrf).toBe("string");
    const session = await asPage(s, "/console/api/session", l.cookie!);
    expect(await session.json()).toMatchObject({ authenticated: true, user: "carol", csrf: l.body.csrf });
    // The page written for this session carries it; without the cookie it carries no user.
    const embedded = (html: string) => JSON.parse(/id="outpost-session">(.*?)<\/script>/.exec(html)![1]!);
    expect(embedded(await (await asPage(s, "/", l.cookie!)).text())).toMatchObject({ user: "carol", csrf: l.body.csrf, tenants: ["A", "B"] });
    const anonymous = embedded(await (await fetch(`${s.col.url}/`)).text());
    expect(anonymous).toEqual({ authRequired: true, authenticated: false, version: expect.any(String) });
  });

  it("a wrong password, an unknown user and an agent's credential are refused, with no session", async () => {
    const s = await secured();
    const wrong = await login(s, "alice", "not-her-password");
    expect(wrong.res.status).toBe(401);
    expect(wrong.body.errorMsg).toBe("Wrong user name or password");
    expect(wrong.cookie).toBeUndefined();
    expect((await login(s, "nobody", "x")).res.status).toBe(401);
    const agent = await login(s, "edge", USERS.edge.password);
    expect(agent.res.status).toBe(403);
    expect(agent.body.errorMsg).toMatch(/MQTT credential/);
    expect(agent.cookie).toBeUndefined();
  });

  it("a login without the console header or as a form is refused (a page elsewhere cannot post one)", async () => {
    const s = await secured();
    const noHeader = await fetch(`${s.col.url}/console/api/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "alice", password: USERS.alice.password }) });
    expect(noHeader.status).toBe(400);
    const form = await fetch(`${s.col.url}/console/api/login`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", [CONSOLE_HEADER]: "1" }, body: "user=alice&password=alice-pw" });
    expect(form.status).toBe(415);
    const bad = await fetch(`${s.col.url}/console/api/login`, { method: "POST", headers: { "Content-Type": "application/json", [CONSOLE_HEADER]: "1" }, body: JSON.stringify({ user: "alice" }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errorMsg: string }).errorMsg).toMatch(/password/);
  });

  it("the session holds only the user's tenants", async () => {
    const s = await secured();
    const { cookie } = await login(s, "alice", USERS.alice.password);
    expect((await asPage(s, "/svc/fleet/feeds", cookie!, { tenant: "A" })).status).toBe(204);
    const other = await asPage(s, "/svc/fleet/feeds", cookie!, { tenant: "B" });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { errorMsg: string }).errorMsg).toMatch(/does not hold tenant 'B'/);
    expect((await asPage(s, "/svc/metrics/gauges/g/raw", cookie!, { tenant: "B" })).status).toBe(403);
  });

  it("changes need the session's CSRF token; reads do not", async () => {
    const s = await secured();
    const l = await login(s, "alice", USERS.alice.password);
    const write = (csrf?: string) =>
      asPage(s, "/svc/metrics/gauges/g/raw", l.cookie!, { method: "POST", tenant: "A", csrf, headers: { "Content-Type": "application/json" }, body: point(1) });
    const none = await write();
    expect(none.status).toBe(403);
    expect(((await none.json()) as { errorMsg: string }).errorMsg).toMatch(/X-Outpost-Csrf/);
    expect((await write("wrong-token-of-the-same-length-as-theirs!!")).status).toBe(403);
    expect((await write(l.body.csrf)).status).toBe(200);
    const read = await asPage(s, "/svc/metrics/gauges/g/raw", l.cookie!, { tenant: "A" });
    expect(((await read.json()) as unknown[]).length).toBe(1);
  });

  it("a 401 to the console's page carries no Basic challenge (no browser password dialog); to others it does", async () => {
    const s = await secured();
    const page = await asPage(s, "/svc/fleet/feeds", "not-a-session", { tenant: "A" });
    expect(page.status).toBe(401);
    expect(page.headers.get("WWW-Authenticate")).not.toMatch(/Basic/);
    const client = await fetch(`${s.col.url}/svc/fleet/feeds`, { headers: { "Svc-Tenant": "A" } });
    expect(client.headers.get("WWW-Authenticate")).toMatch(/Basic/);
  });

  it("logging out ends the session: the cookie is cleared and no longer works", async () => {
    const s = await secured();
    const { cookie } = await login(s, "alice", USERS.alice.password);
    const out = await asPage(s, "/console/api/logout", cookie!, { method: "POST" });
    expect(out.status).toBe(204);
    expect(out.headers.get("Set-Cookie")).toMatch(new RegExp(`${SESSION_COOKIE}=;.*Max-Age=0`, "i"));
    expect((await asPage(s, "/svc/fleet/feeds", cookie!, { tenant: "A" })).status).toBe(401);
    expect(await (await asPage(s, "/console/api/session", cookie!)).json()).toMatchObject({ authenticated: false });
  });

  it("removing or changing the user (then SIGHUP) ends its sessions; others go on", async () => {
    const s = await secured();
    const alice = await login(s, "alice", USERS.alice.password);
    const bob = await login(s, "bob", USERS.bob.password);
    const file = readAuthFile(s.path);
    delete file.users.alice;
    writeAuthFile(s.path, file);
    await s.col.reload();
    expect((await asPage(s, "/svc/fleet/feeds", alice.cookie!, { tenant: "A" })).status).toBe(401);
    expect((await asPage(s, "/svc/fleet/feeds", bob.cookie!, { tenant: "B" })).status).toBe(204);
  });

  it("failed logins are slowed down like any other: 429 with Retry-After", async () => {
    const s = await secured({ "auth-failures": 2 });
    // Sent at once: the throttle counts them as they arrive, not once their checks are done.
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => login(s, "alice", `guess-${i}`)));
    expect(all.filter((l) => l.res.status === 401)).toHaveLength(2);
    const refused = all.find((l) => l.res.status === 429)!;
    expect(all.filter((l) => l.res.status === 429)).toHaveLength(18);
    expect(Number(refused.res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(59);
    expect((refused.body as { errorMsg: string }).errorMsg).toMatch(/^Too many failed logins from 127\.0\.0\.1; retry in \d+ s$/);
  });

  it("behind a trusted proxy that says HTTPS, the cookie is Secure", async () => {
    const s = await secured({ "trusted-proxies": ["127.0.0.1", "::1"] });
    const l = await login(s, "alice", USERS.alice.password, { "X-Forwarded-Proto": "https" });
    expect(l.setCookie).toMatch(/;\s*Secure/i);
  });
});

describe("console sessions in memory", () => {
  const principal = { kind: "user" as const, name: "u", admin: false, tenants: new Set(["A"]) };

  it("end after the idle time, after the maximum age, and when the credential is revoked", () => {
    let now = 0;
    const sessions = new ConsoleSessions({ idleMs: 100, maxMs: 250, maxSessions: 10 }, () => now);
    const a = sessions.open(principal, new AbortController().signal);
    now = 90;
    expect(sessions.find(a.token)).toBeDefined();
    now = 180;
    expect(sessions.find(a.token)).toBeDefined();
    now = 260;
    expect(sessions.find(a.token)).toBeUndefined();
    const b = sessions.open(principal, new AbortController().signal);
    now = 361;
    expect(sessions.find(b.token)).toBeUndefined();
    const revoke = new AbortController();
    const c = sessions.open(principal, revoke.signal);
    revoke.abort();
    expect(sessions.find(c.token)).toBeUndefined();
    expect(sessions.count).toBe(0);
  });

  it("keep at most maxSessions, dropping the least recently used", () => {
    const sessions = new ConsoleSessions({ idleMs: 1e9, maxMs: 1e9, maxSessions: 2 });
    const never = new AbortController().signal;
    const a = sessions.open(principal, never);
    const b = sessions.open(principal, never);
    sessions.find(a.token);
    const c = sessions.open(principal, never);
    expect(sessions.find(b.token)).toBeUndefined();
    expect(sessions.find(a.token)).toBeDefined();
    expect(sessions.find(c.token)).toBeDefined();
  });

  it("compare CSRF tokens exactly", () => {
    const sessions = new ConsoleSessions();
    const { session } = sessions.open(principal, new AbortController().signal);
    expect(ConsoleSessions.csrfMatches(session, session.csrf)).toBe(true);
    expect(ConsoleSessions.csrfMatches(session, `${session.csrf}x`)).toBe(false);
    expect(ConsoleSessions.csrfMatches(session, undefined)).toBe(false);
  });
});
