import { describe, expect, test } from "vitest";
import { parseCpuinfo } from "../../../agent/inputs/host/parse/cpuinfo.ts";
import { parseDiskstats } from "../../../agent/inputs/host/parse/diskstats.ts";
import { parseLoadavg } from "../../../agent/inputs/host/parse/loadavg.ts";
import { parseMeminfo } from "../../../agent/inputs/host/parse/meminfo.ts";
import { parseMounts } from "../../../agent/inputs/host/parse/mounts.ts";
import { parseNetDev } from "../../../agent/inputs/host/parse/net-dev.ts";
import { parseProcStat } from "../../../agent/inputs/host/parse/proc-stat.ts";
import { parseUptime } from "../../../agent/inputs/host/parse/uptime.ts";
import { parseVmstat } from "../../../agent/inputs/host/parse/vmstat.ts";
import { fixture } from "./fixtures.ts";

const vm = (file: string) => fixture("debian12-vm-t0", file);
const edge = (file: string) => fixture("edge-cases", file);

describe("/proc/stat", () => {
  test("captured: aggregate and per-core times in all ten modes, kernel counters", () => {
    const s = parseProcStat(vm("stat"));
    expect(s.total).toEqual({
      user: 212491,
      nice: 0,
      system: 31600,
      idle: 376089,
      iowait: 1903,
      irq: 0,
      softirq: 1484,
      steal: 1026,
      guest: 0,
      guest_nice: 0,
    });
    expect(s.cores.map((c) => c.index)).toEqual([0, 1]);
    expect(s.cores[1]?.times.user).toBe(110228);
    // The per-core lines add up to the aggregate one, within the kernel's rounding of each core.
    const idleSum = (s.cores[0]?.times.idle ?? 0) + (s.cores[1]?.times.idle ?? 0);
    expect(Math.abs(idleSum - (s.total.idle ?? 0))).toBeLessThanOrEqual(s.cores.length);
    expect(s).toMatchObject({ contextSwitches: 8062687, interrupts: 3039145, bootTime: 1795319013, forks: 50584 });
    expect(s).toMatchObject({ procsRunning: 1, procsBlocked: 0 });
  });

  test("old kernel: only the modes it writes, no procs_blocked", () => {
    const s = parseProcStat(edge("stat-old-kernel"));
    expect(Object.keys(s.total)).toEqual(["user", "nice", "system", "idle", "iowait", "irq", "softirq"]);
    expect(s.cores).toHaveLength(2);
    expect(s.procsBlocked).toBeUndefined();
    expect(s.procsRunning).toBe(1);
  });

  test("offline CPU: core indexes keep their gaps", () => {
    expect(parseProcStat(edge("stat-offline-cpu")).cores.map((c) => c.index)).toEqual([0, 2, 3]);
  });

  test("garbage gives an empty result, not an exception", () => {
    expect(parseProcStat(edge("garbage"))).toEqual({ total: {}, cores: [] });
  });
});

describe("/proc/meminfo", () => {
  test("captured: kB values in bytes, counts without a unit as they are", () => {
    const m = parseMeminfo(vm("meminfo"));
    expect(m.get("MemTotal")).toBe(24683656 * 1024);
    expect(m.get("MemAvailable")).toBe(23746660 * 1024);
    expect(m.get("SwapTotal")).toBe(0);
    expect(m.get("HugePages_Total")).toBe(0);
    expect(m.get("Active(anon)")).toBeGreaterThan(0);
  });

  test("old kernel without MemAvailable", () => {
    const m = parseMeminfo(edge("meminfo-no-available"));
    expect(m.has("MemAvailable")).toBe(false);
    expect(m.get("SwapFree")).toBe(524000 * 1024);
  });

  test("garbage", () => {
    expect(parseMeminfo(edge("garbage")).size).toBe(0);
  });
});

describe("/proc/loadavg and /proc/uptime", () => {
  test("captured", () => {
    expect(parseLoadavg(vm("loadavg"))).toEqual({ load1: 0.58, load5: 1.43, load15: 1.81, runnable: 1, threads: 196 });
    expect(parseUptime(vm("uptime"))).toEqual({ uptimeSeconds: 3141.9, idleSeconds: 3760.9 });
  });

  test("empty or garbage input is undefined", () => {
    expect(parseLoadavg("")).toBeUndefined();
    expect(parseLoadavg(edge("garbage"))).toBeUndefined();
    expect(parseLoadavg("0.1 0.2 0.3")).toBeUndefined();
    expect(parseUptime("")).toBeUndefined();
    expect(parseUptime(edge("garbage"))).toBeUndefined();
  });
});

describe("/proc/vmstat", () => {
  test("captured: every counter, including swap activity", () => {
    const v = parseVmstat(vm("vmstat"));
    expect(v.get("pswpin")).toBe(0);
    expect(v.get("pgpgin")).toBeGreaterThan(0);
    expect(v.size).toBe(vm("vmstat").trim().split("\n").length);
  });

  test("garbage", () => {
    expect(parseVmstat(edge("garbage")).size).toBe(0);
  });
});

describe("/proc/diskstats", () => {
  test("captured (kernel 6.x, 20 columns)", () => {
    const d = parseDiskstats(vm("diskstats"));
    expect(d.map((x) => x.name)).toContain("loop0");
    const vda = d.find((x) => x.name === "vda");
    expect(vda).toEqual({
      major: 254,
      minor: 0,
      name: "vda",
      reads: 161644,
      readsMerged: 15884,
      sectorsRead: 6549418,
      readMs: 113845,
      writes: 124711,
      writesMerged: 120419,
      sectorsWritten: 13108992,
      writeMs: 161383,
      inProgress: 0,
      ioMs: 38856,
      weightedIoMs: 296644,
      discards: 44162,
      discardsMerged: 85,
      sectorsDiscarded: 5075248,
      discardMs: 11884,
      flushes: 28950,
      flushMs: 9530,
    });
  });

  test("14 and 18 columns: the later fields are absent", () => {
    const [sda, sda1] = parseDiskstats(edge("diskstats-14"));
    expect(sda).toMatchObject({ name: "sda", sectorsWritten: 160000, weightedIoMs: 1400 });
    expect(sda?.discards).toBeUndefined();
    expect(sda1?.name).toBe("sda1");
    const [d18] = parseDiskstats(edge("diskstats-18"));
    expect(d18).toMatchObject({ inProgress: 1, discards: 7, sectorsDiscarded: 5600, discardMs: 3 });
    expect(d18?.flushes).toBeUndefined();
    const d20 = parseDiskstats(edge("diskstats-20"));
    expect(d20.map((x) => [x.name, x.flushes, x.flushMs])).toEqual([
      ["nvme0n1", 40, 11],
      ["nvme0n1p1", 0, 0],
    ]);
  });

  test("short or garbage lines are skipped", () => {
    expect(parseDiskstats(`${edge("garbage")}\n 8 0 sda 1 2 3\n`)).toEqual([]);
  });
});

describe("/proc/net/dev", () => {
  test("captured: header lines skipped, receive and transmit columns", () => {
    const n = parseNetDev(vm("net/dev"));
    expect(n.map((x) => x.name)).toEqual(["lo", "ifb0", "ifb1", "eth0"]);
    expect(n.find((x) => x.name === "eth0")).toEqual({
      name: "eth0",
      receive: { bytes: 2048499919, packets: 55429, errors: 0, dropped: 0 },
      transmit: { bytes: 3964453, packets: 35952, errors: 0, dropped: 0 },
    });
  });

  test("a counter glued to the colon", () => {
    const [eth0, wlan0] = parseNetDev(edge("net-dev-wide"));
    expect(eth0?.receive).toEqual({ bytes: 123456789012345, packets: 987654321, errors: 3, dropped: 4 });
    expect(eth0?.transmit).toEqual({ bytes: 98765432109876, packets: 123456789, errors: 5, dropped: 6 });
    expect(wlan0?.transmit.errors).toBe(1);
    expect(wlan0?.receive.dropped).toBe(1);
  });

  test("garbage", () => {
    expect(parseNetDev(edge("garbage"))).toEqual([]);
  });
});

describe("/proc/self/mounts", () => {
  test("captured: every line, options split", () => {
    const m = parseMounts(vm("self/mounts"));
    expect(m).toHaveLength(vm("self/mounts").trim().split("\n").length);
    expect(m.find((x) => x.mountPoint === "/")).toEqual({
      device: "/dev/vda",
      mountPoint: "/",
      fsType: "ext4",
      options: ["rw", "relatime", "discard", "resv_strict", "resuid=65534", "resgid=65534"],
    });
  });

  test("octal escapes are decoded", () => {
    const m = parseMounts(edge("mounts-escaped"));
    expect(m.map((x) => x.mountPoint)).toEqual(["/", "/mnt/My Photos", "/mnt/tab\tand\\slash", "/srv", "/srv"]);
    expect(m[2]?.options).toEqual(["ro", "noatime"]);
  });
});

describe("/proc/cpuinfo", () => {
  test("captured x86: a model name per processor, no board", () => {
    const c = parseCpuinfo(vm("cpuinfo"));
    expect(c.processors).toEqual([
      { index: 0, model: "AMD EPYC" },
      { index: 1, model: "AMD EPYC" },
    ]);
    expect(c.machine).toBeUndefined();
  });

  test("Raspberry Pi: the board model", () => {
    const c = parseCpuinfo(edge("cpuinfo-raspberrypi"));
    expect(c.processors.map((p) => p.model)).toEqual(["ARMv7 Processor rev 3 (v7l)", "ARMv7 Processor rev 3 (v7l)"]);
    expect(c.machine).toBe("Raspberry Pi 4 Model B Rev 1.4");
  });

  test("old ARM: one Processor line for all, Hardware as the board", () => {
    const c = parseCpuinfo(edge("cpuinfo-old-arm"));
    expect(c.processors).toEqual([{ index: 0, model: "ARMv6-compatible processor rev 7 (v6l)" }]);
    expect(c.machine).toBe("BCM2708");
  });
});
