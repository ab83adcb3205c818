import { describe, expect, it } from "vitest";
import { ago, duration, number, timeLabel, withUnit } from "../../collector/http/console/web/format.ts";
import { type Alert, filterAlerts, mergeAlert, triggerHistory } from "../../collector/http/console/web/pages/alerts-model.ts";
import { ancestors, buildTree, type Entity, metricKind, visibleNodes } from "../../collector/http/console/web/pages/inventory-model.ts";

const F = "/t;acme/f;web-1";
const entity = (path: string, extra: Partial<Entity> = {}): Entity => ({ path, id: path.slice(path.lastIndexOf(";") + 1), ...extra });

describe("inventory tree", () => {
  const entities = [
    entity(`${F}/rt;host`),
    entity(`${F}/mt;load1`),
    entity(`${F}/r;host`, { name: "vm" }),
    entity(`${F}/r;host/r;cpu:cpu1`, { name: "cpu1" }),
    entity(`${F}/r;host/r;cpu:cpu0`, { name: "cpu0" }),
    entity(`${F}/r;host/m;web-1:load1`, { name: "load1", type: { path: `${F}/mt;load1`, id: "load1", metricDataType: "gauge" } }),
    entity(`${F}/r;host/m;web-1:forks`, { name: "forks_total", type: { path: `${F}/mt;forks`, id: "forks", metricDataType: "counter" } }),
    entity(`${F}/r;host/m;web-1:cpu`, { name: "cpu_usage", type: { path: `${F}/mt;cpu`, id: "cpu", metricDataType: "gauge" } }),
    entity(`${F}/m;web-1:loose`, { name: "loose" }),
  ];

  it("hangs resources from their parents by path, with their metrics (gauges first), types left out", () => {
    const roots = buildTree(F, entities);
    expect(roots.map((r) => r.entity.name)).toEqual(["vm", "Feed metrics"]);
    const host = roots[0]!;
    expect(host.children.map((c) => c.entity.name)).toEqual(["cpu0", "cpu1"]);
    expect(host.metrics.map((m) => m.name)).toEqual(["cpu_usage", "load1", "forks_total"]);
    expect(roots[1]!.metrics.map((m) => m.name)).toEqual(["loose"]);
  });

  it("lists what is visible for the keyboard, and the way down to a resource", () => {
    const roots = buildTree(F, entities);
    expect(visibleNodes(roots, new Set()).map((n) => n.node.entity.name)).toEqual(["vm", "Feed metrics"]);
    expect(visibleNodes(roots, new Set([`${F}/r;host`])).map((n) => [n.node.entity.name, n.depth])).toEqual([
      ["vm", 0],
      ["cpu0", 1],
      ["cpu1", 1],
      ["Feed metrics", 0],
    ]);
    expect(ancestors(`${F}/r;host/r;cpu:cpu0`)).toEqual([`${F}/r;host`]);
    expect(metricKind(entities[6]!)).toBe("counter");
    expect(metricKind(entity("x"))).toBe("gauge");
  });
});

const alert = (id: string, status: Alert["status"], at: number, extra: Partial<Alert> = {}): Alert => ({
  id,
  status,
  ctime: at,
  severity: "HIGH",
  trigger: { id: "t1", name: "Disk full" },
  lifecycle: [{ status: "OPEN", user: "system", stime: at }],
  ...extra,
});

describe("alerts", () => {
  it("filters by status, severity and text, newest change first", () => {
    const list = [
      alert("a", "OPEN", 10),
      alert("b", "ACKNOWLEDGED", 5, { lifecycle: [{ status: "OPEN", user: "system", stime: 5 }, { status: "ACKNOWLEDGED", user: "ann", stime: 50 }] }),
      alert("c", "RESOLVED", 20),
      alert("d", "OPEN", 30, { severity: "LOW", trigger: { id: "t2", name: "Latency" } }),
    ];
    const ids = (f: Parameters<typeof filterAlerts>[1]) => filterAlerts(list, f).map((a) => a.id);
    expect(ids({ statuses: new Set(["OPEN", "ACKNOWLEDGED"]), severity: "", text: "" })).toEqual(["b", "d", "a"]);
    expect(ids({ statuses: new Set(["OPEN"]), severity: "HIGH", text: "" })).toEqual(["a"]);
    expect(ids({ statuses: new Set(["OPEN", "RESOLVED"]), severity: "", text: "disk" })).toEqual(["c", "a"]);
  });

  it("a newer copy from the watch replaces the old one but keeps notes the stream does not carry", () => {
    const withNote = alert("a", "OPEN", 10, { notes: [{ user: "ann", ctime: 11, text: "seen" }] });
    const m = mergeAlert(new Map([["a", withNote]]), alert("a", "ACKNOWLEDGED", 10));
    expect(m.get("a")!.status).toBe("ACKNOWLEDGED");
    expect(m.get("a")!.notes).toEqual(withNote.notes);
  });

  it("a trigger's history lists lifecycle changes, notes and events, newest first", () => {
    const a = alert("a", "RESOLVED", 10, {
      lifecycle: [
        { status: "OPEN", user: "system", stime: 10 },
        { status: "ACKNOWLEDGED", user: "ann", stime: 20 },
        { status: "RESOLVED", user: "bob", stime: 40 },
      ],
      notes: [{ user: "ann", ctime: 30, text: "restarting" }],
      evalSets: [[{ displayString: "disk GT 90: 95" }]],
    });
    const h = triggerHistory([a], [{ id: "e", ctime: 35, category: "DEPLOY", text: "v2" }]);
    expect(h.map((x) => [x.at, x.what, x.who])).toEqual([
      [40, "Resolved", "bob"],
      [35, "Event (DEPLOY)", undefined],
      [30, "Note", "ann"],
      [20, "Acknowledged", "ann"],
      [10, "Fired (high)", undefined],
    ]);
    expect(h.at(-1)!.detail).toBe("disk GT 90: 95");
  });
});

describe("formats", () => {
  it("durations, ages, numbers, units and axis labels", () => {
    expect(duration(45_000)).toBe("45 s");
    expect(duration(12 * 60_000)).toBe("12 min");
    expect(duration(3 * 3_600_000 + 5 * 60_000)).toBe("3 h 5 min");
    expect(duration(2 * 86_400_000 + 4 * 3_600_000)).toBe("2 d 4 h");
    expect(ago(1000, 3000)).toBe("just now");
    expect(ago(0, 600_000)).toBe("10 min ago");
    expect(ago(undefined, 0)).toBe("—");
    expect(number(12_345)).toBe("12.3 k");
    expect(number(0.12345)).toBe("0.123");
    expect(number(2_500_000)).toBe("2.5 M");
    expect(withUnit(1536, "BYTES")).toBe("1.5 KiB");
    expect(withUnit(97.5, "PERCENTAGE")).toBe("97.5 %");
    expect(withUnit(2500, "MILLISECONDS")).toBe("2.5 s");
    const t = new Date(2026, 10, 24, 14, 5, 9).getTime();
    expect(timeLabel(t, 60_000)).toBe("14:05:09");
    expect(timeLabel(t, 3_600_000)).toBe("14:05");
    expect(timeLabel(t, 2 * 86_400_000)).toBe("11-24 14:05");
    expect(timeLabel(t, 30 * 86_400_000)).toBe("11-24");
  });
});
