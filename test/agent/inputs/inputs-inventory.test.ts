/**
 * The inventory lists each input and each scrape target with its health, synced to the
 * collector over MQTT with the host's structure.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

let sys: InputsSystem;
let exporter: ReturnType<typeof Bun.serve>;
let deadPort: number;

beforeAll(async () => {
  exporter = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("x 1\n") });
  deadPort = await freePort();
  sys = await startInputsSystem({
    "host-metrics": true,
    "host-interval": "1s",
    inventory: true,
    inputs: { prometheus: [{ job: "inv", targets: [`127.0.0.1:${exporter.port}`, `127.0.0.1:${deadPort}`], interval: "1s", timeout: "500ms" }] },
  });
}, 60_000);
afterAll(async () => {
  await sys?.close();
  exporter?.stop(true);
});

const traversal = async (path: string) => {
  const res = await sys.col.req(`/svc/inventory/traversal/${path}`, { tenant: sys.tenant });
  return res.status === 200 ? ((await body(res)) as { id: string; name?: string; properties?: Record<string, unknown> }[]) : [];
};

describe("inputs in the inventory", () => {
  test("each input, and each scrape target with its health and last error", async () => {
    const inputs = await waitFor(
      "the inputs in the inventory",
      async () => {
        const r = await traversal(`f;${sys.feed}/r;host/type=r`);
        return r.some((x) => x.id === "input:prometheus") ? r : undefined;
      },
      30_000,
      200,
    );
    expect(inputs.filter((r) => r.id.startsWith("input:")).map((r) => r.id).sort()).toEqual(["input:influx", "input:otlp", "input:prometheus"]);
    const targets = await waitFor(
      "both targets' health",
      async () => {
        const r = await traversal(`f;${sys.feed}/r;host/r;${encodeURIComponent("input:prometheus")}/type=r`);
        return r.length === 2 && r.every((t) => t.properties?.health !== "unknown") ? r : undefined;
      },
      30_000,
      200,
    );
    const byUrl = Object.fromEntries(targets.map((t) => [t.properties!.url, t.properties!]));
    expect(byUrl[`http://127.0.0.1:${exporter.port}/metrics`]).toMatchObject({ job: "inv", health: "up" });
    expect(byUrl[`http://127.0.0.1:${deadPort}/metrics`]).toMatchObject({ job: "inv", health: "down" });
    expect(String(byUrl[`http://127.0.0.1:${deadPort}/metrics`]!.lastError)).toMatch(/ECONNREFUSED|Unable to connect/);
  }, 60_000);
});
