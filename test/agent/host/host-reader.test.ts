import { cpus, totalmem, uptime } from "node:os";
import { statfsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createHostReader, type HostReaderOptions, type HostSample } from "../../../agent/inputs/host/host-reader.ts";
import { DEFAULT_EXCLUDED_FS_TYPES, DEFAULT_HOST_EXCLUDES, systemStatfs } from "../../../agent/inputs/host/options.ts";
import { procFiles, type ProcFiles } from "../../../agent/inputs/host/proc-files.ts";
import type { StatFsResult } from "../../../agent/inputs/host/read-filesystems.ts";
import { seriesSelection } from "../../../agent/inputs/host/selection.ts";
import { fieldsOf, fixture, VM_T0, VM_T1 } from "./fixtures.ts";

/** /sys as captured: only the names under /sys/block matter. */
const capturedSys: ProcFiles = {
  read: () => undefined,
  list: (dir) => (dir === "block" ? fixture("debian12-vm-sys-block.txt").trim().split("\n") : []),
};

const rootFs: StatFsResult = { bsize: 4096, frsize: 4096, blocks: 1000, bfree: 400, bavail: 300, files: 50, ffree: 20 };

/** A proc tree that can be switched between captures, as time passes on a real host. */
function switchableProc(root: string) {
  let files = procFiles(root);
  const proc: ProcFiles = { read: (p) => files.read(p), list: (p) => files.list(p) };
  return { proc, moveTo: (r: string) => (files = procFiles(r)) };
}

function reader(over: Partial<HostReaderOptions> = {}) {
  const { proc, moveTo } = switchableProc(VM_T0);
  const r = createHostReader({
    feed: "edge1",
    proc,
    sys: capturedSys,
    statfs: (m) => (m === "/" ? rootFs : undefined),
    selection: seriesSelection(["*"], DEFAULT_HOST_EXCLUDES),
    excludedFsTypes: new Set(DEFAULT_EXCLUDED_FS_TYPES),
    userHz: 100,
    ...over,
  });
  return { reader: r, moveTo };
}

const value = (s: HostSample, id: string) => s.writes.find((w) => w.id === id)?.points[0]?.value;
const type = (s: HostSample, id: string) => s.writes.find((w) => w.id === id)?.type;

describe("host reader on captured /proc", () => {
  test("CPU time per mode in ms as counters, usage as a gauge from the second sample on", () => {
    const { reader: r, moveTo } = reader();
    const first = r.sample(1000);
    expect(value(first, "edge1:cpu_time_ms_total:total:user")).toBe(212491 * 10);
    expect(value(first, "edge1:cpu_time_ms_total:cpu1:steal")).toBe(612 * 10);
    expect(type(first, "edge1:cpu_time_ms_total:cpu0:idle")).toBe("counter");
    expect(value(first, "edge1:cpu_usage_percent:total")).toBeUndefined();
    // The series exists already, so the inventory does not change when the value appears.
    expect(first.series.map((s) => s.id)).toContain("edge1:cpu_usage_percent:total");

    moveTo(VM_T1);
    const second = r.sample(4000);
    const ticks = (root: string, cpu: string) => {
      const [, user, nice, system, idle, iowait, irq, softirq, steal] = fieldsOf(fixture(root, "stat"), `${cpu} `).map(Number);
      const busy = user! + nice! + system! + irq! + softirq! + steal!;
      return { busy, total: busy + idle! + iowait! };
    };
    for (const [cpu, id] of [
      ["cpu", "total"],
      ["cpu0", "cpu0"],
      ["cpu1", "cpu1"],
    ] as const) {
      const a = ticks("debian12-vm-t0", cpu);
      const b = ticks("debian12-vm-t1", cpu);
      const usage = value(second, `edge1:cpu_usage_percent:${id}`);
      expect(type(second, `edge1:cpu_usage_percent:${id}`)).toBe("gauge");
      // Computed percentages are kept to 0.01 (docs/storage.md).
      expect(usage).toBe(Math.round(((b.busy - a.busy) / (b.total - a.total)) * 10_000) / 100);
    }
  });

  test("memory, swap, load, processes and uptime", () => {
    const s = reader().reader.sample(1);
    const kib = 1024;
    expect(value(s, "edge1:memory_total_bytes")).toBe(24683656 * kib);
    expect(value(s, "edge1:memory_used_bytes")).toBe((24683656 - 23746660) * kib);
    expect(value(s, "edge1:memory_used_percent")).toBe(3.8);
    expect(value(s, "edge1:swap_used_bytes")).toBe(0);
    expect(type(s, "edge1:swap_in_pages_total")).toBe("counter");
    expect(value(s, "edge1:load5")).toBe(1.43);
    expect(value(s, "edge1:threads")).toBe(196);
    // The capture holds three process directories (1, 7, 4242).
    expect(value(s, "edge1:processes")).toBe(3);
    expect(value(s, "edge1:forks_total")).toBe(50584);
    expect(value(s, "edge1:uptime_seconds")).toBe(3141.9);
    for (const w of s.writes) expect(w.points).toEqual([{ timestamp: 1, value: w.points[0]?.value }]);
  });

  test("disks: whole disks only, loop and zram excluded by default; bytes from 512-byte sectors", () => {
    const s = reader().reader.sample(1);
    const devices = new Set(s.series.filter((x) => x.spec.scope === "disk").map((x) => x.resource.instance));
    expect([...devices]).toEqual(["vda"]);
    expect(value(s, "edge1:disk_read_bytes_total:vda")).toBe(6549418 * 512);
    expect(value(s, "edge1:disk_io_time_ms_total:vda")).toBe(38856);
    expect(type(s, "edge1:disk_io_in_progress:vda")).toBe("gauge");
  });

  test("filesystems: real ones only, space from statfs", () => {
    const s = reader().reader.sample(1);
    const mounts = new Set(s.series.filter((x) => x.spec.scope === "filesystem").map((x) => x.resource.instance));
    expect([...mounts]).toEqual(["/"]);
    expect(value(s, "edge1:filesystem_size_bytes:root")).toBe(1000 * 4096);
    expect(value(s, "edge1:filesystem_used_bytes:root")).toBe(600 * 4096);
    expect(value(s, "edge1:filesystem_available_bytes:root")).toBe(300 * 4096);
    expect(value(s, "edge1:filesystem_used_percent:root")).toBe(66.67);
    const fs = s.series.find((x) => x.id === "edge1:filesystem_files_free:root");
    expect(fs?.resource.properties).toEqual({ device: "/dev/vda", fsType: "ext4" });
    expect(fs?.tags).toEqual({ feed: "edge1", metric: "filesystem_files_free", mountpoint: "/" });
  });

  test("network interfaces except loopback", () => {
    const s = reader().reader.sample(1);
    const names = new Set(s.series.filter((x) => x.spec.scope === "interface").map((x) => x.resource.instance));
    expect([...names].sort()).toEqual(["eth0", "ifb0", "ifb1"]);
    expect(value(s, "edge1:network_receive_bytes_total:eth0")).toBe(2048499919);
    expect(value(s, "edge1:network_transmit_packets_total:eth0")).toBe(35952);
  });

  test("every counter value is an integer and every series has a type", () => {
    const { reader: r, moveTo } = reader();
    r.sample(1);
    moveTo(VM_T1);
    const s = r.sample(2);
    for (const w of s.writes) {
      const series = s.series.find((x) => x.id === w.id);
      expect(series?.spec.kind).toBe(w.type);
      if (w.type === "counter") expect(Number.isSafeInteger(w.points[0]?.value)).toBe(true);
    }
    expect(new Set(s.writes.map((w) => w.id)).size).toBe(s.writes.length);
  });

  test("includes and excludes select series by key", () => {
    const only = reader({ selection: seriesSelection(["memory_*", "cpu_usage_percent:*"], ["cpu_*:cpu*"]) }).reader.sample(1);
    expect(only.series.map((x) => x.key).sort()).toEqual([
      "cpu_usage_percent:total",
      "memory_available_bytes",
      "memory_buffers_bytes",
      "memory_cached_bytes",
      "memory_free_bytes",
      "memory_total_bytes",
      "memory_used_bytes",
      "memory_used_percent",
    ]);
  });

  test("a file that cannot be read skips its metrics and is reported once", () => {
    const problems: string[] = [];
    const empty: ProcFiles = { read: () => undefined, list: () => [] };
    const r = createHostReader({
      feed: "f",
      proc: empty,
      sys: empty,
      statfs: () => undefined,
      selection: seriesSelection(["*"], []),
      excludedFsTypes: new Set(),
      userHz: 100,
      onProblem: (m) => problems.push(m),
    });
    expect(r.sample(1).writes).toEqual([]);
    r.sample(2);
    expect(problems.length).toBe(new Set(problems).size);
    expect(problems.some((p) => p.includes("meminfo"))).toBe(true);
  });

  test("an interface that goes away leaves the series list", () => {
    let netDev = fixture("debian12-vm-t0", "net/dev");
    const base = procFiles(VM_T0);
    const proc: ProcFiles = { read: (p) => (p === "net/dev" ? netDev : base.read(p)), list: (p) => base.list(p) };
    const { reader: r } = reader({ proc });
    expect(r.sample(1).series.some((s) => s.resource.instance === "ifb1")).toBe(true);
    netDev = netDev.replace(/^.*ifb1:.*$/m, "");
    expect(r.sample(2).series.some((s) => s.resource.instance === "ifb1")).toBe(false);
  });
});

describe("host reader on this machine's /proc", () => {
  test("agrees with what node:os and statfs report", async () => {
    const r = createHostReader({
      feed: "local",
      proc: procFiles("/proc"),
      sys: procFiles("/sys"),
      statfs: systemStatfs,
      selection: seriesSelection(["*"], []),
      excludedFsTypes: new Set(DEFAULT_EXCLUDED_FS_TYPES),
      userHz: 100,
    });
    r.sample(Date.now());
    // Usage needs CPU ticks (10 ms each) to pass between two samples.
    let s = r.sample(Date.now());
    while (value(s, "local:cpu_usage_percent:total") === undefined) {
      await new Promise((done) => setTimeout(done, 20));
      s = r.sample(Date.now());
    }
    const cores = new Set(s.series.filter((x) => x.spec.scope === "cpu" && x.resource.scope === "cpu").map((x) => x.resource.instance));
    expect(cores.size).toBe(cpus().length);
    expect(value(s, "local:memory_total_bytes")).toBe(totalmem());
    expect(Math.abs((value(s, "local:uptime_seconds") as number) - uptime())).toBeLessThan(5);
    const usage = value(s, "local:cpu_usage_percent:total") as number;
    expect(usage).toBeGreaterThanOrEqual(0);
    expect(usage).toBeLessThanOrEqual(100);
    expect(value(s, "local:processes")).toBeGreaterThan(1);
    const root = statfsSync("/");
    expect(value(s, "local:filesystem_size_bytes:root")).toBe(root.blocks * root.bsize);
  });
});
