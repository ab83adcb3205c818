import { describe, expect, it } from "vitest";
import { rangesWithin } from "../../collector/http/console/web/pages/metrics-model.ts";
import { statusText, windowText } from "../../collector/http/console/web/on-site/status-model.ts";
import type { OnSiteStatus } from "../../src/http/console/names.ts";

const HOUR = 3_600_000;

describe("the on-site view's ranges", () => {
  it("offers the named ranges that fit in the agent's window, at least the shortest; all of them at the collector", () => {
    expect(rangesWithin(24 * HOUR).map((r) => r.id)).toEqual(["15mn", "1h", "6h", "24h"]);
    expect(rangesWithin(2 * HOUR).map((r) => r.id)).toEqual(["15mn", "1h"]);
    expect(rangesWithin(60_000).map((r) => r.id)).toEqual(["15mn"]);
    expect(rangesWithin(undefined).map((r) => r.id)).toEqual(["15mn", "1h", "6h", "24h", "7d", "30d"]);
  });
});

describe("the on-site banner", () => {
  const now = Date.UTC(2026, 10, 28, 12, 0, 0);
  const base: OnSiteStatus = {
    tenant: "acme",
    feed: "edge-17",
    now,
    connected: false,
    downSince: now - 2 * HOUR - 5 * 60_000,
    lastAckAt: now - 2 * HOUR - 6 * 60_000,
    backlog: { points: 12_345, bytes: 1_300_000, oldest: now - 2 * HOUR },
    history: { windowMs: 24 * HOUR, points: 800_000, bytes: 850_000 },
    dropped: 0,
    broker: "mqtts://collector.example.net:8883",
    version: "0.1.0",
  };

  it("offline: since when, by the agent's clock, and what waits first", () => {
    const t = statusText(base);
    expect(t.tone).toBe("offline");
    expect(t.headline).toMatch(/^Offline: no connection to the broker mqtts:\/\/collector\.example\.net:8883 since .+ \(2 h 5 min\)\.$/);
    expect(t.details[0]).toMatch(/^12,345 points \(1\.24 MiB\) wait to be sent, the oldest buffered at /);
    expect(t.details[1]).toMatch(/^The collector last acknowledged data at .+ \(2 h 6 min ago\)\.$/);
    expect(t.details[2]).toBe("The agent keeps 24 h of acknowledged data for this view (800,000 points, 830 KiB), and reads the waiting points too.");
  });

  it("online: the broker, the last acknowledgement first; drops are said when there are some", () => {
    const t = statusText({ ...base, connected: true, downSince: undefined, lastAckAt: now - 3000, backlog: { points: 0, bytes: 0 }, dropped: 42 });
    expect(t.tone).toBe("online");
    expect(t.headline).toBe("Connected to the broker mqtts://collector.example.net:8883.");
    expect(t.details).toEqual([
      expect.stringMatching(/^The collector last acknowledged data at .+ \(just now\)\.$/),
      "Nothing waits to be sent.",
      expect.stringMatching(/^The agent keeps 24 h/),
      "42 points were dropped since the agent started (buffer full, too old, or refused by the collector).",
    ]);
    expect(statusText({ ...base, lastAckAt: undefined }).details[1]).toBe("The collector has acknowledged nothing since the agent started.");
  });

  it("names the window as configured", () => {
    expect(windowText(24 * HOUR)).toBe("24 h");
    expect(windowText(90 * 60_000)).toBe("1 h 30 min");
    expect(windowText(7 * 24 * HOUR)).toBe("7 d");
  });
});
