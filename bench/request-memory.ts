/**
 * The collector's memory under concurrent large HTTP requests (issue 13: two 200 MB POSTs took
 * it from 609 to 1,705 MB RSS). Starts a collector with the default --max-request-body (32 MB),
 * samples its RSS every 20 ms while each scenario runs, and prints the peak over the baseline.
 * Run: node_modules/.bin/bun bench/request-memory.ts
 */
import { fmt, row, rssMB, startCollectorProcess, tempDir } from "./_lib.ts";

const dir = tempDir("outpost-bench-body-");
const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--self-metrics-interval", "0"]);
const headers = { "Content-Type": "application/json", "Svc-Tenant": "bench" };

async function peakDuring(run: () => Promise<string>): Promise<{ peak: number; before: number; outcome: string }> {
  Bun.gc(true);
  await Bun.sleep(300);
  const before = rssMB(proc.pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMB(proc.pid));
  }, 20);
  const outcome = await run();
  await Bun.sleep(200);
  clearInterval(timer);
  peak = Math.max(peak, rssMB(proc.pid));
  return { peak, before, outcome };
}

const statuses = (rs: Response[]) => {
  const n = new Map<number, number>();
  for (const r of rs) n.set(r.status, (n.get(r.status) ?? 0) + 1);
  return [...n].map(([s, c]) => `${c}× ${s}`).join(", ");
};

/** A valid gauge write of about `mb` MB (points of one metric). */
function pointsBody(mb: number, id: string): Uint8Array {
  const parts: string[] = [];
  let size = 0;
  const t0 = Date.now() - 86_400_000;
  for (let i = 0; size < mb * 1024 * 1024 - 100; i++) {
    const p = `{"timestamp":${t0 + i},"value":${(i % 1000) / 7}}`;
    parts.push(p);
    size += p.length + 1;
  }
  return new TextEncoder().encode(`[{"id":"${id}","dataPoints":[${parts.join(",")}]}]`);
}

const scenarios: [string, () => Promise<string>][] = [
  [
    "2 concurrent 200 MB POSTs with Content-Length",
    async () => {
      const big = new Uint8Array(200 * 1024 * 1024).fill(32);
      return statuses(await Promise.all([0, 1].map(() => fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", body: big, headers }))));
    },
  ],
  [
    "2 concurrent 200 MB chunked POSTs (no Content-Length)",
    async () => {
      const stream = () => {
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent >= 200 * 1024 * 1024) return c.close();
            sent += 1024 * 1024;
            c.enqueue(new Uint8Array(1024 * 1024).fill(32));
          },
        });
      };
      const rs = await Promise.all([0, 1].map(() => fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", body: stream(), headers, duplex: "half" } as RequestInit)));
      return statuses(rs);
    },
  ],
  [
    "8 concurrent valid 30 MB writes (about 800,000 points each)",
    async () => {
      const bodies = Array.from({ length: 8 }, (_, i) => pointsBody(30, `bench.big.${i}`));
      return statuses(await Promise.all(bodies.map((b) => fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", body: b, headers }))));
    },
  ],
];

console.log("collector RSS under concurrent large requests (--max-request-body 32 MB, bodies in flight ≤ 128 MB)\n");
try {
  for (const [name, run] of scenarios) {
    const { peak, before, outcome } = await peakDuring(run);
    row(name, `${outcome}; RSS ${fmt(before)} → peak ${fmt(peak)} MB (+${fmt(peak - before)})`);
  }
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  dir.remove();
}
