/**
 * Data sets the point codec is measured on (bench/codec.ts): simulated and recorded host
 * metrics of the agent's default selection, the peers workload, and random floats.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gaussian, uniform } from "../test/helpers/series.ts";

export interface Series {
  id: string;
  ts: Float64Array;
  values: Float64Array;
}

/** Host metrics recorded by bench/_record-host.ts: one entry per series. */
export interface HostRecording {
  intervalMs: number;
  series: { id: string; type: string; ts: number[]; values: number[] }[];
}

const STEP = 10_000;
const T0 = Date.UTC(2026, 10, 1);

/** Timestamps as the agent takes them: the wall clock at each tick of a 10 s timer, which runs a few ms late. */
function agentClock(n: number, seed: number): Float64Array {
  const u = uniform(seed);
  const ts = new Float64Array(n);
  let t = T0 + 1234;
  for (let i = 0; i < n; i++) {
    ts[i] = t;
    t += STEP + Math.floor(u() * 13);
  }
  return ts;
}

/** The same samples on the 10 s grid, as an agent that stamps the scheduled time would send them. */
export function aligned(s: Series): Series {
  return { id: s.id, ts: s.ts.map((t) => Math.round(t / STEP) * STEP), values: s.values };
}

/**
 * One day (or `n` samples) of a 2-CPU host with one disk, one filesystem and three network
 * interfaces (two idle), every series of the agent's default selection: 95 series, as on the
 * machine the recording comes from. The load follows a daily cycle with bursts; counters
 * grow by amounts drawn around it, memory moves in pages, filesystems in 4 KiB blocks, load
 * averages are exponential averages with two decimals, percentages are computed as the agent
 * computes them (full float64 ratios).
 */
export function simulatedHost(n = 8640, seed = 1): Series[] {
  const u = uniform(seed);
  const g = gaussian(seed + 1);
  const ts = agentClock(n, seed + 2);
  const out = new Map<string, Float64Array>();
  const put = (id: string, i: number, v: number) => {
    let a = out.get(id);
    if (!a) out.set(id, (a = new Float64Array(n)));
    a[i] = v;
  };
  const pos = (x: number) => Math.max(0, Math.round(x));
  const modes = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"] as const;
  const cpuTicks = [0, 1].map(() => ({
    ...(Object.fromEntries(modes.map((m) => [m, 0])) as Record<(typeof modes)[number], number>),
    user: 17_000,
    system: 5_400,
    idle: 43_000,
    iowait: 300,
    softirq: 40,
    steal: 50,
  }));
  const memTotal = 8_246_181_888;
  let free = 5_100_000_000 - (5_100_000_000 % 4096);
  let buffers = 98_000_000 - (98_000_000 % 4096);
  let cached = 1_900_000_000 - (1_900_000_000 % 4096);
  let load = [0.4, 0.5, 0.5];
  let threads = 180;
  let processes = 98;
  let forks = 20_000;
  let ctx = 3_000_000;
  let intr = 830_000;
  let uptime = 650.12;
  const disk = { reads: 52_000, writes: 47_000, rb: 1_500_000_000, wb: 3_900_000_000, rt: 39_000, wt: 59_000, io: 13_000 };
  const fsSize = 270_553_174_016;
  let fsFree = 244_302_389_248;
  const reserved = 161_608_880_128;
  let filesFree = 16_314_713;
  const net = { rb: 1_206_816_674, tb: 2_146_032, rp: 29_078, tp: 19_344, drop: 0 };
  for (let i = 0; i < n; i++) {
    const day = (ts[i]! - T0) / 86_400_000;
    const burst = u() < 0.02 ? 0.5 * u() : 0;
    const a = Math.min(0.95, 0.12 + 0.08 * Math.sin(2 * Math.PI * day) + burst + 0.02 * g() ** 2);
    // CPU: 1,000 ticks per CPU per 10 s, shared between the modes, counted in ms (10 ms a tick).
    const prevBusy: number[] = [];
    const prevTotal: number[] = [];
    const now = cpuTicks.map((c, k) => {
      const busyOf = (x: typeof c) => x.user + x.nice + x.system + x.irq + x.softirq + x.steal;
      prevBusy[k] = busyOf(c);
      prevTotal[k] = prevBusy[k]! + c.idle + c.iowait;
      const user = pos(1000 * a * 0.65 + 15 * g());
      const system = pos(1000 * a * 0.28 + 8 * g());
      const iowait = u() < 0.1 ? pos(20 * u()) : 0;
      const softirq = pos(3 + 2 * g());
      const steal = u() < 0.3 ? pos(3 * u()) : 0;
      c.user += user;
      c.system += system;
      c.iowait += iowait;
      c.softirq += softirq;
      c.steal += steal;
      c.idle += Math.max(0, 1000 + Math.round(g()) - user - system - iowait - softirq - steal);
      return c;
    });
    for (const m of modes) put(`cpu_time_ms_total:total:${m}`, i, (now[0]![m] + now[1]![m]) * 10);
    let tb = 0;
    let tt = 0;
    now.forEach((c, k) => {
      for (const m of modes) put(`cpu_time_ms_total:cpu${k}:${m}`, i, c[m] * 10);
      const busy = c.user + c.nice + c.system + c.irq + c.softirq + c.steal;
      const total = busy + c.idle + c.iowait;
      tb += busy - prevBusy[k]!;
      tt += total - prevTotal[k]!;
      if (i > 0) put(`cpu_usage_percent:cpu${k}`, i, ((busy - prevBusy[k]!) / (total - prevTotal[k]!)) * 100);
    });
    if (i > 0) put("cpu_usage_percent:total", i, (tb / tt) * 100);
    // Memory in pages of 4 KiB; meminfo counts kB.
    free = Math.max(200_000_000, free + 4096 * Math.round(3000 * g() - 2000 * burst));
    buffers = Math.max(1_000_000, buffers + 4096 * Math.round(40 * g()));
    cached = Math.max(100_000_000, cached + 4096 * Math.round(1500 * g()));
    const available = free + buffers + Math.round(cached * 0.8 / 1024) * 1024;
    const used = memTotal - available;
    put("memory_total_bytes", i, memTotal);
    put("memory_free_bytes", i, free);
    put("memory_available_bytes", i, available);
    put("memory_buffers_bytes", i, buffers);
    put("memory_cached_bytes", i, cached);
    put("memory_used_bytes", i, used);
    put("memory_used_percent", i, (used / memTotal) * 100);
    for (const s of ["swap_total_bytes", "swap_free_bytes", "swap_used_bytes", "swap_in_pages_total", "swap_out_pages_total"]) put(s, i, 0);
    // Load averages: exponential averages of the runnable count, shown with two decimals.
    const running = Math.round(a * 4 + u());
    load = load.map((l, k) => l + (running - l) * (1 - Math.exp(-10 / [60, 300, 900][k]!)));
    put("load1", i, Math.round(load[0]! * 100) / 100);
    put("load5", i, Math.round(load[1]! * 100) / 100);
    put("load15", i, Math.round(load[2]! * 100) / 100);
    threads = Math.max(150, threads + Math.round(3 * g()));
    processes = Math.max(80, processes + (u() < 0.2 ? Math.round(2 * g()) : 0));
    put("threads", i, threads);
    put("processes", i, processes);
    put("processes_running", i, Math.max(1, running));
    put("processes_blocked", i, u() < 0.03 ? 1 : 0);
    forks += pos(40 * a + 5 * g());
    ctx += pos(25_000 * a + 2000 * g());
    intr += pos(9000 * a + 500 * g());
    put("forks_total", i, forks);
    put("context_switches_total", i, ctx);
    put("interrupts_total", i, intr);
    if (i > 0) uptime += (ts[i]! - ts[i - 1]!) / 1000;
    put("uptime_seconds", i, Math.round(uptime * 100) / 100);
    // Disk: operations and 512-byte sectors.
    const reads = u() < 0.1 ? pos(20 * u()) : 0;
    const writes = pos(60 * a + 10 * g());
    disk.reads += reads;
    disk.writes += writes;
    disk.rb += 512 * pos(reads * 16 * (1 + u()));
    disk.wb += 512 * pos(writes * 24 * (1 + u()));
    disk.rt += pos(reads * 0.8);
    disk.wt += pos(writes * 1.2);
    disk.io += Math.min(10_000, pos((reads + writes) * 0.4));
    put("disk_reads_total:vda", i, disk.reads);
    put("disk_writes_total:vda", i, disk.writes);
    put("disk_read_bytes_total:vda", i, disk.rb);
    put("disk_written_bytes_total:vda", i, disk.wb);
    put("disk_read_time_ms_total:vda", i, disk.rt);
    put("disk_write_time_ms_total:vda", i, disk.wt);
    put("disk_io_time_ms_total:vda", i, disk.io);
    put("disk_io_in_progress:vda", i, u() < 0.05 ? pos(3 * u()) : 0);
    // Filesystem: space moves in 4 KiB blocks (logs grow, now and then something is deleted).
    fsFree += u() < 0.01 ? 4096 * pos(50_000 * u()) : -4096 * pos(writes * 0.3);
    const avail = fsFree - reserved;
    const fsUsed = fsSize - fsFree;
    filesFree += u() < 0.3 ? Math.round(4 * g()) : 0;
    put("filesystem_size_bytes:root", i, fsSize);
    put("filesystem_free_bytes:root", i, fsFree);
    put("filesystem_available_bytes:root", i, avail);
    put("filesystem_used_bytes:root", i, fsUsed);
    put("filesystem_used_percent:root", i, (fsUsed / (fsUsed + avail)) * 100);
    put("filesystem_files:root", i, 16_777_216);
    put("filesystem_files_free:root", i, filesFree);
    // Network: eth0 busy, the two ifb interfaces idle.
    const rp = pos(400 * a + 30 * g());
    const tp = pos(300 * a + 20 * g());
    net.rp += rp;
    net.tp += tp;
    net.rb += pos(rp * (300 + 1200 * u()));
    net.tb += pos(tp * (100 + 300 * u()));
    net.drop += u() < 0.001 ? 1 : 0;
    const nets: [string, number][] = [
      ["receive_bytes", net.rb],
      ["transmit_bytes", net.tb],
      ["receive_packets", net.rp],
      ["transmit_packets", net.tp],
      ["receive_errors", 0],
      ["transmit_errors", 0],
      ["receive_dropped", net.drop],
      ["transmit_dropped", 0],
    ];
    for (const [name, v] of nets) {
      put(`network_${name}_total:eth0`, i, v);
      put(`network_${name}_total:ifb0`, i, 0);
      put(`network_${name}_total:ifb1`, i, 0);
    }
  }
  return [...out].map(([id, values]) =>
    // Rates have no value on the first sample: those series start one sample later.
    id.startsWith("cpu_usage") ? { id, ts: ts.subarray(1), values: values.subarray(1) } : { id, ts, values },
  );
}

/** The recording of bench/_record-host.ts on the machine it ran on. */
export function recordedHost(): Series[] {
  const file = join(import.meta.dir, "fixtures", "host-recording.json.gz");
  const rec = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(file)))) as HostRecording;
  return rec.series.map((s) => ({ id: s.id, ts: Float64Array.from(s.ts), values: Float64Array.from(s.values) }));
}

/**
 * A recording stretched to `n` samples: the recorded steps (timestamp deltas, and value
 * changes) played forwards, backwards, forwards... so every step is a real one and gauges
 * stay within their recorded range; counters (which only grow) replay their increments
 * forwards each time.
 */
export function extrapolate(rec: Series[], n: number): Series[] {
  return rec.map((s) => {
    const m = s.ts.length;
    const step = (k: number) => {
      const period = 2 * (m - 1);
      const r = k % period;
      return r < m - 1 ? r + 1 : period - r;
    };
    const counter = s.id.includes("_total");
    const ts = new Float64Array(n);
    const values = new Float64Array(n);
    ts[0] = s.ts[0]!;
    values[0] = s.values[0]!;
    for (let i = 1; i < n; i++) {
      const j = step(i - 1);
      const fwd = Math.floor((i - 1) / (m - 1)) % 2 === 0;
      ts[i] = ts[i - 1]! + (s.ts[j]! - s.ts[j - 1]!);
      if (counter) values[i] = values[i - 1]! + Math.abs(s.values[j]! - s.values[j - 1]!);
      else values[i] = fwd ? s.values[j]! : s.values[j - 1]!;
    }
    return { id: s.id, ts, values };
  });
}

/** The peers benchmark's series s (bench/peers.ts): 1,000 points at 10 s spacing. */
export function peersSeries(s: number, points = 1000): Series {
  const ts = new Float64Array(points);
  const values = new Float64Array(points);
  for (let j = 0; j < points; j++) {
    ts[j] = T0 + j * STEP;
    values[j] = (s % 100) + Math.sin(j / 10) * 10;
  }
  return { id: `peers-${s}`, ts, values };
}

/** Uniform doubles in [0, 1), and (worst case) float64 of random bits, NaN payloads included. */
export function randomSeries(kind: "uniform" | "bits", n: number, seed: number): Series {
  const u = uniform(seed);
  const values = new Float64Array(n);
  if (kind === "uniform") for (let i = 0; i < n; i++) values[i] = u();
  else {
    const w = new Uint32Array(values.buffer);
    for (let i = 0; i < w.length; i++) w[i] = Math.floor(u() * 2 ** 32);
  }
  return { id: `random-${kind}`, ts: agentClock(n, seed), values };
}
