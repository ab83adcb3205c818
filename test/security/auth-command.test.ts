import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUN, Proc, waitHealthy } from "../e2e/harness.ts";
import { basic, bearer } from "../helpers/auth.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

/** Issue 15 item 1: `collector auth ...` as a user runs it, and the collector re-reading the file on SIGHUP. */
const dir = mkdtempSync(join(tmpdir(), "outpost-auth-cmd-"));
const file = join(dir, "auth.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function auth(args: string[], o: { stdin?: string; env?: Record<string, string> } = {}) {
  const p = Bun.spawn([BUN, "collector/main.ts", "auth", ...args], {
    stdin: o.stdin === undefined ? "ignore" : new TextEncoder().encode(o.stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...o.env },
  });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err };
}

describe("collector auth", () => {
  it("add: hashes the password (argon2id), writes the file 0600, and never stores or prints the secret", async () => {
    const r = await auth(["add", "--auth-file", file, "--user", "alice", "--password", "correct horse", "--tenants", "a,b"]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("warning: --password is visible to other users (ps)");
    expect(r.err).toContain("added user 'alice': tenants a,b");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("correct horse");
    const json = JSON.parse(text);
    expect(json.outpostAuth).toBe(1);
    expect(json.users.alice.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(json.users.alice.tenants).toEqual(["a", "b"]);
    expect(json.users.alice.mosquitto).toBeUndefined();
  });

  it("add: the password from a file, the environment, standard input, or generated and printed once", async () => {
    writeFileSync(join(dir, "pw"), "from-a-file\n", { mode: 0o600 });
    expect((await auth(["add", "--auth-file", file, "--user", "ops", "--password-file", join(dir, "pw"), "--admin"])).code).toBe(0);
    expect((await auth(["add", "--auth-file", file, "--user", "env", "--tenants", "a"], { env: { OUTPOST_AUTH_PASSWORD: "from-env" } })).err).not.toContain("warning");
    expect((await auth(["add", "--auth-file", file, "--user", "piped", "--tenants", "a"], { stdin: "from-stdin\n" })).code).toBe(0);
    const gen = await auth(["add", "--auth-file", file, "--user", "edge-1", "--feed", "acme/edge-1", "--generate-password"]);
    expect(gen.code).toBe(0);
    expect(gen.out.trim()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const json = JSON.parse(readFileSync(file, "utf8"));
    expect(json.users["edge-1"].agent).toEqual({ tenant: "acme", feed: "edge-1" });
    // An MQTT credential also carries Mosquitto's own hash, for `mosquitto-files`.
    expect(json.users["edge-1"].mosquitto).toMatch(/^\$7\$20000\$/);
    expect(readFileSync(file, "utf8")).not.toContain(gen.out.trim());
  });

  it("commands run at once (parallel provisioning) lose nothing: the file is locked around each change", async () => {
    const shared = join(dir, "parallel.json");
    const rs = await Promise.all(
      Array.from({ length: 5 }, (_, i) => auth(["add", "--auth-file", shared, "--user", `edge-${i}`, "--feed", `acme/edge-${i}`, "--generate-password"])),
    );
    expect(rs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(Object.keys(JSON.parse(readFileSync(shared, "utf8")).users).sort()).toEqual(["edge-0", "edge-1", "edge-2", "edge-3", "edge-4"]);
    expect(() => statSync(`${shared}.lock`)).toThrow();
  });

  it("refuses mistakes in one line: an existing user, no role or two, a bad feed, an unknown command", async () => {
    for (const [args, msg] of [
      [["add", "--auth-file", file, "--user", "alice", "--password", "x", "--tenants", "a"], "user 'alice' exists: remove it first or pass --replace"],
      [["add", "--auth-file", file, "--user", "nobody", "--password", "x"], "give exactly one of --tenants, --admin, --feed or --collector"],
      [["add", "--auth-file", file, "--user", "two", "--password", "x", "--admin", "--tenants", "a"], "give exactly one of"],
      [["add", "--auth-file", file, "--user", "e", "--password", "x", "--feed", "no-slash"], '--feed: "no-slash" is not TENANT/FEED'],
      [["add", "--auth-file", file, "--user", "a:b", "--password", "x", "--admin"], "must not contain ':'"],
      [["frobnicate"], "unknown auth command 'frobnicate'"],
    ] as const) {
      const r = await auth([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err.trim().split("\n").at(-1)).toContain(msg);
    }
    expect((await auth(["add", "--auth-file", file, "--user", "alice", "--password", "new", "--tenants", "a", "--replace"])).err).toContain("replaced user 'alice'");
  });

  it("token prints a bearer token once; list shows roles and never secrets; the collector picks up add and remove on SIGHUP", async () => {
    const tok = await auth(["token", "--auth-file", file, "--tenants", "a", "--name", "grafana"]);
    expect(tok.code).toBe(0);
    const token = tok.out.trim();
    expect(token).toMatch(/^outpost_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    // The secret is everything after the id: base64url, so it may itself hold "_" (splitting on
    // "_" then left a character or two, found in the file's hashes by chance).
    const secret = token.slice("outpost_".length + 12 + 1);
    expect(secret).toHaveLength(43);
    expect(readFileSync(file, "utf8")).not.toContain(secret);
    const list = await auth(["list", "--auth-file", file]);
    expect(list.out).toContain("user  alice  tenants a");
    expect(list.out).toContain("user  edge-1  agent of feed acme/edge-1");
    expect(list.out).toMatch(/token [0-9a-f]{12} {2}tenants a {2}\(grafana\)/);
    expect(list.out).not.toContain("$argon2id");

    const port = await freePort();
    const col = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(port), "--mqtt-port", "0", "--data-dir", join(dir, "data"), "--auth-file", file], dir);
    col.start();
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, col);
      const get = (authorization: string) => fetch(`${url}/svc/metrics/metrics`, { headers: { "Svc-Tenant": "a", Authorization: authorization } }).then((r) => r.status);
      expect(await get(bearer(token))).toBe(204);
      expect(await get(basic("piped", "from-stdin"))).toBe(204);
      expect((await auth(["remove", "--auth-file", file, "--token", token])).code).toBe(0);
      expect((await auth(["add", "--auth-file", file, "--user", "late", "--password", "pw", "--tenants", "a"])).code).toBe(0);
      expect(await get(bearer(token))).toBe(204);
      process.kill(col.pid!, "SIGHUP");
      await waitFor("the re-read", async () => ((await get(bearer(token))) === 401 ? true : undefined), 5000);
      expect(await get(basic("late", "pw"))).toBe(204);
      expect(col.running).toBe(true);
      expect(col.tail()).toContain("auth file re-read");
    } finally {
      await col.kill("SIGTERM");
    }
  });
});
