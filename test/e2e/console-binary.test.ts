/**
 * The console in single-file binaries compiled as `npm run release` compiles them: the
 * collector's console and the agent's on-site view (`npm run build:console` builds both) are
 * embedded and served, with no sources beside the binary; a binary compiled without them says
 * so. Each case builds from its own copy of the sources, so the shared dist/ folders (the
 * release writes them) are never touched. The collector's worker threads' scripts are in its
 * binary as well.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileArgs, type Program } from "../../deploy/release/binaries.ts";
import { releaseInfo } from "../../deploy/release/build-info.ts";
import { ROOT } from "../../deploy/release/runtimes.ts";
import { freePort } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-console-bin-"));
const running: Proc[] = [];

afterAll(async () => {
  for (const p of running) await p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function run(cmd: string[]): void {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
}

const BUILT = ["collector/http/console/dist", "agent/http/on-site/dist"].map((d) => resolve(ROOT, d));

/** A copy of what both programs are built from (no console build in it), with the installed packages. */
function sourceCopy(name: string): string {
  const root = join(dir, name);
  const skip = (f: string) => BUILT.some((built) => resolve(f) === built || resolve(f).startsWith(`${built}/`));
  for (const part of ["agent", "collector", "src", "package.json", "tsconfig.json"]) cpSync(join(ROOT, part), join(root, part), { recursive: true, filter: (f) => !skip(f) });
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  return root;
}

/** The release's compile step for this machine, of a copy's program. */
function compile(root: string, outfile: string, program: Program = "collector"): void {
  const args = compileArgs(program, process.arch === "arm64" ? "linux-arm64" : "linux-x64", releaseInfo(), outfile);
  // Its entry points (main and the worker threads' scripts) from the copy.
  const fromRoot = `${ROOT}/`;
  run([BUN, ...args.map((a) => (a.startsWith(fromRoot) && !a.includes("node_modules") ? join(root, a.slice(fromRoot.length)) : a))]);
}

/** The files a build wrote, by name, as its manifest lists them. */
function builtFiles(dist: string): Map<string, Buffer> {
  const manifest = readFileSync(join(dist, "manifest.ts"), "utf8");
  const names = [...manifest.matchAll(/name: "([^"]+)"/g)].map((m) => m[1]!);
  expect(names.some((n) => n.endsWith(".js")) && names.some((n) => n.endsWith(".css"))).toBe(true);
  return new Map(names.map((n) => [n, readFileSync(join(dist, n))] as const));
}

async function startBinary(binary: string, name: string): Promise<{ url: string; proc: Proc }> {
  const port = await freePort();
  const proc = new Proc(name, [binary, "--http-port", String(port), "--mqtt-port", "0", "--data-dir", join(dir, `${name}-data`)], dir);
  running.push(proc);
  proc.start();
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, proc);
  return { url, proc };
}

describe("the console in a compiled collector", () => {
  it("without `build:console` first, the binary answers 503 saying so", async () => {
    const root = sourceCopy("bare");
    const binary = join(dir, "bare-collector");
    compile(root, binary);
    const { url } = await startBinary(binary, "bare");
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { errorMsg: string }).errorMsg).toMatch(/run `bun run build:console` before `bun build --compile`/);
    // The interfaces work regardless.
    expect((await fetch(`${url}/svc/metrics/status`)).status).toBe(200);
  }, 120_000);

  it("after it, serves the embedded page and assets byte for byte", async () => {
    const root = sourceCopy("built");
    run([BUN, join(root, "collector/http/console/build.ts")]);
    const built = builtFiles(join(root, "collector/http/console/dist"));
    const names = [...built.keys()];
    const binary = join(dir, "outpost-collector");
    compile(root, binary);
    // The sources go: the binary must not need them.
    rmSync(root, { recursive: true, force: true });
    const { url, proc } = await startBinary(binary, "embedded");
    const html = await (await fetch(`${url}/`)).text();
    for (const name of names) {
      expect(html).toContain(`./console/assets/${name}`);
      const res = await fetch(`${url}/console/assets/${name}`, { headers: { "Accept-Encoding": "identity" } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(built.get(name)!)).toBe(true);
    }
    expect(proc.tail()).toMatch(/console assets ready origin=embedded/);

    // The worker threads' scripts are bundled too (they were not, once: the offloads fell back
    // to the main thread unnoticed): a JSON write body over 32 KB is parsed by the ingest worker.
    const t0 = Date.now() - 600_000;
    const body = JSON.stringify(
      Array.from({ length: 20 }, (_v, s) => ({ id: `w${s}`, data: Array.from({ length: 200 }, (_w, j) => ({ timestamp: t0 + j * 1000, value: s + j / 7 })) })),
    );
    expect(body.length).toBeGreaterThan(32 * 1024);
    const H = { "Content-Type": "application/json", "Hawkular-Tenant": "bin" };
    expect((await fetch(`${url}/hawkular/metrics/gauges/raw`, { method: "POST", headers: H, body })).status).toBe(200);
    const points = (await (await fetch(`${url}/hawkular/metrics/gauges/w3/raw?start=${t0}&end=${t0 + 200_000}`, { headers: H })).json()) as { value: number }[];
    expect(points).toHaveLength(200);
    const exposition = await (await fetch(`${url}/metrics`)).text();
    expect(exposition).toMatch(/^outpost_collector_ingest_worker_bodies_total 1$/m);
    expect(exposition).toMatch(/^outpost_collector_ingest_worker_lost_total 0$/m);

    // And the roller's: series past a chunk's 1,024 points are sealed, and their chunks rolled up in it.
    const long = Array.from({ length: 4 }, (_v, s) => ({ id: `r${s}`, data: Array.from({ length: 1100 }, (_w, j) => ({ timestamp: t0 + j * 500, value: s * j })) }));
    expect((await fetch(`${url}/hawkular/metrics/gauges/raw`, { method: "POST", headers: H, body: JSON.stringify(long) })).status).toBe(200);
    let rolled = "";
    for (let i = 0; i < 100 && !/^outpost_collector_rollup_worker_requests_total [1-9]/m.test(rolled); i++) {
      await Bun.sleep(100);
      rolled = await (await fetch(`${url}/metrics`)).text();
    }
    expect(rolled).toMatch(/^outpost_collector_rollup_worker_requests_total [1-9]/m);
    expect(rolled).toMatch(/^outpost_collector_rollup_worker_lost_total 0$/m);
  }, 120_000);
});

describe("the on-site view in a compiled agent", () => {
  const TOKEN = "binary-on-site-token-7f3e1a";

  async function startAgentBinary(binary: string, name: string): Promise<{ url: string; proc: Proc }> {
    const port = await freePort();
    // No collector anywhere: the technician's case.
    const args = ["--tenant", "site", "--feed", "pump-3", "--broker", `mqtt://127.0.0.1:${await freePort()}`, "--listen", `127.0.0.1:${port}`, "--data-dir", join(dir, `${name}-data`)];
    const proc = new Proc(name, [binary, ...args], dir, { OUTPOST_AGENT_API_TOKEN: TOKEN });
    running.push(proc);
    proc.start();
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, proc);
    return { url, proc };
  }

  it("without `build:console` first, the agent answers its page 503 saying so, and works on", async () => {
    const root = sourceCopy("bare-agent");
    const binary = join(dir, "bare-outpost-agent");
    compile(root, binary, "agent");
    const { url } = await startAgentBinary(binary, "bare-agent");
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { errorMsg: string }).errorMsg).toMatch(/holds no on-site console: run `bun run build:console` before `bun build --compile`/);
    expect((await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  }, 120_000);

  it("after it, serves the on-site page and its assets byte for byte, and logs in with the api token", async () => {
    const root = sourceCopy("built-agent");
    run([BUN, join(root, "agent/http/on-site/build.ts")]);
    const built = builtFiles(join(root, "agent/http/on-site/dist"));
    const binary = join(dir, "outpost-agent");
    compile(root, binary, "agent");
    rmSync(root, { recursive: true, force: true });
    const { url, proc } = await startAgentBinary(binary, "embedded-agent");
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    const html = await page.text();
    for (const [name, bytes] of built) {
      expect(html).toContain(`./console/assets/${name}`);
      const res = await fetch(`${url}/console/assets/${name}`, { headers: { "Accept-Encoding": "identity" } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(proc.tail()).toMatch(/console assets ready origin=embedded/);
    // Only the metrics page: the collector's other pages are not in the on-site script.
    const script = [...built.entries()].find(([n]) => n.endsWith(".js"))![1].toString();
    expect(script).toContain("Local view of feed");
    expect(script).not.toContain("New trigger");
    // The token login, and a read with the session it opens.
    const login = await fetch(`${url}/console/api/login`, { method: "POST", headers: { "Content-Type": "application/json", "X-Outpost-Console": "1" }, body: JSON.stringify({ token: TOKEN }) });
    expect(login.status).toBe(200);
    const cookie = /^(outpost_on_site=[^;]+);/.exec(login.headers.get("Set-Cookie") ?? "")?.[1];
    expect(cookie).toBeDefined();
    const status = await fetch(`${url}/console/api/status`, { headers: { Cookie: cookie! } });
    expect(await status.json()).toMatchObject({ feed: "pump-3", tenant: "site", connected: false });
  }, 120_000);
});
