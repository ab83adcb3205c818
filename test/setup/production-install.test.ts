/**
 * `npm ci --omit=dev && npm start` (issue 25): a production install has what the programs need
 * to run (Bun included) and nothing the tests and the release need; its postinstall step does
 * not need them either. Run in a copy of the sources, from the npm cache `npm ci` filled.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { portOf, ROOT, Running, runToEnd } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-production-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a production install", () => {
  it("npm ci --omit=dev installs without dev dependencies, and npm start and npm run agent work from it", async () => {
    for (const f of ["package.json", "package-lock.json", "bunfig.toml", "tsconfig.json", "collector", "agent", "src", "deploy"]) cpSync(join(ROOT, f), join(dir, f), { recursive: true });
    const install = await runToEnd(["npm", "ci", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir, timeoutMs: 300_000 });
    expect(install.code, install.stdout + install.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    for (const d of Object.keys(pkg.devDependencies)) expect(existsSync(join(dir, "node_modules", d)), d).toBe(false);

    const mqtt = await freePort();
    // In a session of their own: npm does not pass SIGTERM on, so the whole group is stopped.
    const collector = new Running(["setsid", "npm", "start", "--", "--data-dir", join(dir, "data"), "--http-port", "0", "--mqtt-port", String(mqtt)], { cwd: dir });
    let agent: Running | undefined;
    try {
      const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/, 60_000))}`;
      await collector.waitForLine(/collector ready/, 60_000);
      expect((await fetch(`${url}/svc/metrics/status`)).status).toBe(200);
      // The console is built from the production dependencies too.
      expect(await (await fetch(`${url}/`)).text()).toContain("console/assets/");
      agent = new Running(["setsid", "npm", "run", "agent", "--", "--tenant", "acme", "--data-dir", join(dir, "agent"), "--listen", ""], { cwd: dir });
      await agent.waitForLine(/connected to broker/, 60_000);
    } finally {
      for (const p of [agent, collector]) {
        if (!p?.running) continue;
        process.kill(-p.pid, "SIGTERM");
        await p.exited;
      }
    }
  }, 360_000);
});
