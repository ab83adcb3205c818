/**
 * The README's quick start on a machine where ports 8080 and 1883 are taken (a web server, a
 * Mosquitto): `npm start` still starts, says which ports it took instead, and the README's agent
 * command works against them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { portOf, ROOT, Running } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-quickstart-"));
const holders: Server[] = [];

/** Takes the port on every address unless something already has it: either way it is taken. */
async function occupy(port: number): Promise<void> {
  const s = createServer();
  const ok = await new Promise<boolean>((resolve, reject) => {
    s.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve(false) : reject(e)));
    s.listen(port, "0.0.0.0", () => resolve(true));
  });
  if (ok) holders.push(s);
}

beforeAll(async () => {
  await occupy(8080);
  await occupy(1883);
});
afterAll(() => {
  for (const s of holders) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("quick start with 8080 and 1883 taken", () => {
  it("npm start picks free ports, says which, and the agent of the README reaches it", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe("bun collector/main.ts");
    expect(pkg.scripts.agent).toBe("bun agent/main.ts");
    // What `npm start` runs, from a fresh folder: no option at all.
    const collector = Running.start("collector", [], { cwd: dir });
    const agentPort = await freePort();
    let agent: Running | undefined;
    try {
      const httpWarn = await collector.waitForLine(/HTTP port 8080 is taken; listening on port \d+ instead/);
      const mqttWarn = await collector.waitForLine(/MQTT port 1883 is taken \(another broker\?\); the embedded broker listens on port \d+ instead/);
      await collector.waitForLine(/collector ready/);
      const httpPort = Number(/port (\d+) instead/.exec(httpWarn)![1]);
      const mqttPort = Number(/port (\d+) instead/.exec(mqttWarn)![1]);
      expect(portOf(await collector.waitForLine(/MQTT broker listening/))).toBe(mqttPort);

      agent = Running.start("agent", ["--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "acme", "--feed", "web-1", "--listen", `127.0.0.1:${agentPort}`], { cwd: dir });
      await agent.waitForLine(/connected to broker/);
      const t = Date.now();
      const w = await fetch(`http://localhost:${agentPort}/svc/metrics/gauges/app.latency/raw`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" },
        body: JSON.stringify([{ timestamp: t, value: 12.5 }]),
      });
      expect(w.status).toBe(200);
      const points = await waitFor("the point at the collector", async () => {
        const r = await fetch(`http://localhost:${httpPort}/svc/metrics/gauges/app.latency/raw`, { headers: { "Svc-Tenant": "acme" } });
        return r.status === 200 ? ((await r.json()) as unknown[]) : undefined;
      });
      expect(points).toEqual([{ timestamp: t, value: 12.5 }]);
    } finally {
      await agent?.stop("SIGTERM");
      await collector.stop("SIGTERM");
    }
  });

  it("a port chosen explicitly must be free: no silent substitute", async () => {
    const c = Running.start("collector", ["--http-port", "8080", "--data-dir", join(dir, "explicit")], { cwd: dir });
    expect(await c.exited).toBe(2);
    expect(c.lines.at(-1)).toMatch(/^error: HTTP address \S+:8080 is already in use: choose another with --http-port$/);
  });
});
