/**
 * A changed [agent.inputs] applied while running (what SIGHUP does): a new job is scraped, a
 * removed one ends its series with staleness markers, an unchanged target goes on untouched;
 * StatsD starts listening.
 */
import { createSocket } from "node:dgram";
import { afterAll, describe, expect, test } from "vitest";
import { startInputs } from "../../../agent/inputs/inputs.ts";
import { DefinitionLedger } from "../../../agent/inputs/series-output.ts";
import { createLogger } from "../../../src/log/logger.ts";
import type { MetricWrite } from "../../../src/metrics/model.ts";
import { STALE_NAN } from "../../../src/prometheus/staleness.ts";
import { Telemetry } from "../../../src/telemetry/registry.ts";
import { waitFor } from "../../helpers/ports.ts";

const a = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("reload_a 1\n") });
const b = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("reload_b 2\n") });
afterAll(() => {
  a.stop(true);
  b.stop(true);
});

describe("inputs reloaded", () => {
  test("jobs added, removed and kept; StatsD switched on", async () => {
    const writes: MetricWrite[] = [];
    const inputs = await startInputs({
      values: { inputs: { prometheus: [{ job: "a", targets: [`127.0.0.1:${a.port}`], interval: "1s" }] } },
      feed: "f",
      ledger: new DefinitionLedger(),
      sink: async (w) => void writes.push(...w),
      telemetry: new Telemetry(),
      log: createLogger("error"),
      staleMarker: STALE_NAN,
    });
    try {
      const has = (id: string, marker = false) => writes.some((w) => w.id.startsWith(id) && w.points.some((p) => Number.isNaN(p.value) === marker));
      await waitFor("job a scraped", () => (has("reload_a{") ? true : undefined), 10_000);
      const loopA = inputs.targets()[0];
      const udp = createSocket("udp4");
      await new Promise<void>((r) => udp.bind(0, "127.0.0.1", () => r()));
      const udpPort = udp.address().port;
      await new Promise<void>((r) => udp.close(() => r()));
      await inputs.reload({
        inputs: {
          prometheus: [
            { job: "a", targets: [`127.0.0.1:${a.port}`], interval: "1s" },
            { job: "b", targets: [`127.0.0.1:${b.port}`], interval: "1s" },
          ],
          statsd: { udp: `127.0.0.1:${udpPort}`, flush_interval: "200ms" },
        },
      });
      expect(inputs.targets()[0]).toBe(loopA);
      expect(inputs.statsd().udp).toBe(`127.0.0.1:${udpPort}`);
      await waitFor("job b scraped", () => (has("reload_b{") ? true : undefined), 10_000);
      await inputs.reload({ inputs: { prometheus: [{ job: "b", targets: [`127.0.0.1:${b.port}`], interval: "1s" }] } });
      expect(inputs.targets().map((t) => t.job)).toEqual(["b"]);
      expect(inputs.statsd().udp).toBeUndefined();
      // The removed job's series and its up ended with staleness markers.
      expect(has("reload_a{", true)).toBe(true);
      expect(has('up{feed="f",instance', true)).toBe(true);
    } finally {
      await inputs.stop();
    }
  }, 30_000);
});
