/**
 * The README's quick start on a machine where ports 8080 and 1883 are taken (a web server, a
 * Mosquitto): `npm start` still starts, says which ports it took instead and the agent command for
 * them, and the README's agent line, without --broker, finds that broker and delivers.
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

/** The README's quick-start agent block: the agent's command line, the write, the read. */
function readmeAgentBlock(): { agent: string[]; write: string; read: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /```sh\n(npm run agent -- [^\n]+)\n(curl -s -XPOST[^\n]+\\\n[^\n]+)\n(curl -s -H[^\n]+)\n```/.exec(readme);
  expect(block, "the README's quick-start agent block").not.toBeNull();
  return { agent: block![1]!.split(" "), write: block![2]!, read: block![3]! };
}

describe("quick start with 8080 and 1883 taken", () => {
  it("npm start picks free ports, prints the agent's command for them, and the README's agent line works as printed", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe("bun collector/main.ts");
    expect(pkg.scripts.agent).toBe("bun agent/main.ts");
    const readme = readmeAgentBlock();
    // Verbatim but for the agent's own port and data folder, which a test run must keep private.
    expect(readme.agent.slice(0, 3)).toEqual(["npm", "run", "agent"]);
    expect(readme.agent).not.toContain("--broker");
    const agentPort = await freePort();
    const agentArgs = readme.agent.slice(4).map((a) => a.replace(/^127\.0\.0\.1:8181$/, `127.0.0.1:${agentPort}`));
    expect(agentArgs).toContain(`127.0.0.1:${agentPort}`);
    // What `npm start` runs, from a fresh folder: no option at all (npm names its script to it).
    const collector = Running.start("collector", [], { cwd: dir, env: { npm_lifecycle_event: "start" } });
    let agent: Running | undefined;
    try {
      const httpWarn = await collector.waitForLine(/HTTP port 8080 is taken; listening on port \d+ instead/);
      const mqttWarn = await collector.waitForLine(/MQTT port 1883 is taken \(another broker\?\); the embedded broker listens on port \d+ instead/);
      await collector.waitForLine(/collector ready/);
      const httpPort = Number(/port (\d+) instead/.exec(httpWarn)![1]);
      const mqttPort = Number(/port (\d+) instead/.exec(mqttWarn)![1]);
      expect(portOf(await collector.waitForLine(/MQTT broker listening/))).toBe(mqttPort);
      // The exact command for the ports it took, and where the agent will find them.
      const told = await collector.waitForLine(/start an agent: /);
      expect(told).toContain(`start an agent: npm run agent -- --broker mqtt://127.0.0.1:${mqttPort} --tenant acme (on this machine --broker may be left out)`);
      expect(told).toContain(`console=http://127.0.0.1:${httpPort}/`);

      agent = Running.start("agent", [...agentArgs, "--data-dir", join(dir, "agent-data")], { cwd: dir });
      expect(await agent.waitForLine(/broker: the collector running on this machine/)).toContain(`broker=mqtt://127.0.0.1:${mqttPort}`);
      await agent.waitForLine(/connected to broker/);
      // The README's write, as curl sends it.
      expect(readme.write).toContain("localhost:8181/svc/metrics/gauges/app.latency/raw");
      const t = Date.now();
      const w = await fetch(`http://localhost:${agentPort}/svc/metrics/gauges/app.latency/raw`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" },
        body: JSON.stringify([{ timestamp: t, value: 12.5 }]),
      });
      expect(w.status).toBe(200);
      // The README's read, at the port the collector printed.
      expect(readme.read).toBe("curl -s -H 'Svc-Tenant: acme' localhost:8080/svc/metrics/gauges/app.latency/raw");
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
