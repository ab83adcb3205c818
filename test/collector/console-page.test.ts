import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_HEADER } from "../../src/http/console/names.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${col.url}${path}`, { headers, redirect: "manual" });

describe("the console's page", () => {
  it("is served at / and /console/ with links relative to where it is; /console redirects to /console/", async () => {
    const root = await get("/?tenant=acme");
    expect(root.status).toBe(200);
    expect(root.headers.get("Content-Type")).toMatch(/^text\/html/);
    // It holds the session (user, CSRF token): no cache keeps it.
    expect(root.headers.get("Cache-Control")).toBe("no-store");
    const html = await root.text();
    expect(html).toContain('<meta name="outpost-root" content="./">');
    expect(html).toMatch(/<script type="module" src="\.\/console\/assets\/main-[a-z0-9]+\.js">/);
    expect(html).toMatch(/<link rel="stylesheet" href="\.\/console\/assets\/main-[a-z0-9]+\.css">/);
    // The session is written into the page, so its first read need not wait for one.
    const session = JSON.parse(/<script type="application\/json" id="outpost-session">(.*?)<\/script>/.exec(html)![1]!);
    expect(session).toMatchObject({ authRequired: false, authenticated: true, admin: true });
    const nested = await (await get("/console/")).text();
    expect(nested).toContain('<meta name="outpost-root" content="../">');
    expect(nested).toMatch(/src="\.\.\/console\/assets\/main-[a-z0-9]+\.js"/);
    const bare = await get("/console?tenant=acme");
    expect(bare.status).toBe(301);
    expect(bare.headers.get("Location")).toBe("console/?tenant=acme");
  });

  it("forbids framing and foreign scripts, styles and connections", async () => {
    const res = await get("/");
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
  });

  it("serves its bundled assets, gzipped when asked, cacheable forever under hashed names; others are 404", async () => {
    const html = await (await get("/")).text();
    const script = /src="\.\/(console\/assets\/[^"]+)"/.exec(html)![1]!;
    const style = /href="\.\/(console\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    const plain = await get(`/${script}`, { "Accept-Encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("Content-Type")).toMatch(/^text\/javascript/);
    expect(plain.headers.get("Cache-Control")).toContain("immutable");
    const js = await plain.text();
    // Preact and uPlot are in the bundle: nothing is fetched from elsewhere.
    expect(js.length).toBeGreaterThan(30_000);
    expect(js).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const zipped = await fetch(`${col.url}/${script}`, { headers: { "Accept-Encoding": "gzip" }, decompress: false } as RequestInit);
    expect(zipped.headers.get("Content-Encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString()).toBe(js);
    const css = await get(`/${style}`);
    expect(css.headers.get("Content-Type")).toMatch(/^text\/css/);
    expect(await css.text()).toContain(".uplot");
    const missing = await get("/console/assets/nothing.js");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { errorMsg: string }).errorMsg).toMatch(/No console asset/);
  });

  it("needs no login without an auth file, and lists every tenant", async () => {
    await col.req("/svc/metrics/gauges/g/raw", { method: "POST", tenant: "zeta", json: [{ timestamp: Date.now(), value: 1 }] });
    await col.req("/svc/metrics/gauges/g/raw", { method: "POST", tenant: "alpha", json: [{ timestamp: Date.now(), value: 1 }] });
    const s = (await (await get("/console/api/session")).json()) as { authRequired: boolean; authenticated: boolean; tenants: string[] };
    expect(s.authRequired).toBe(false);
    expect(s.authenticated).toBe(true);
    expect(s.tenants).toEqual(expect.arrayContaining(["alpha", "zeta"]));
    expect(s.tenants.indexOf("alpha")).toBeLessThan(s.tenants.indexOf("zeta"));
    const login = await fetch(`${col.url}/console/api/login`, { method: "POST", headers: { "Content-Type": "application/json", [CONSOLE_HEADER]: "1" }, body: "{}" });
    expect(login.status).toBe(400);
    expect(((await login.json()) as { errorMsg: string }).errorMsg).toMatch(/no --auth-file/);
  });
});

describe("--console false", () => {
  it("serves no page, only the interfaces", async () => {
    const bare = await startTestCollector({ console: false });
    try {
      expect((await fetch(`${bare.url}/`)).status).toBe(404);
      expect((await fetch(`${bare.url}/console/`)).status).toBe(404);
      expect((await bare.req("/svc/fleet/feeds", { tenant: "t" })).status).toBe(204);
    } finally {
      await bare.close();
    }
  });
});
