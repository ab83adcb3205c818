/**
 * A synthetic exporter for bench/inputs-scrape.ts: SERIES series (default 10,000) in the text
 * format, counters that grow at every scrape and gauges, in families with histogram-like label
 * sets, as a busy application exposes them. Counts scrapes per User-Agent at /stats. Prints its
 * port on the first line of stdout.
 */
const SERIES = Number(process.env.SERIES ?? 10_000);
const scrapes = new Map<string, number>();
let round = 0;

function body(): string {
  round++;
  const parts: string[] = ["# HELP synthetic_requests_total Requests handled.\n# TYPE synthetic_requests_total counter\n"];
  const half = SERIES / 2;
  for (let i = 0; i < half; i++) parts.push(`synthetic_requests_total{service="svc-${i % 50}",route="/api/v1/r${i % 100}",code="${200 + (i % 5)}",instance_id="${i}"} ${round * (i % 17) + i}\n`);
  parts.push("# HELP synthetic_queue_depth Items waiting.\n# TYPE synthetic_queue_depth gauge\n");
  for (let i = 0; i < SERIES - half; i++) parts.push(`synthetic_queue_depth{service="svc-${i % 50}",queue="q${i % 200}",shard="${i}"} ${(round * 7 + i) % 1000}.5\n`);
  return parts.join("");
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/stats") return Response.json(Object.fromEntries(scrapes));
    const ua = (req.headers.get("User-Agent") ?? "?").split("/")[0]!;
    scrapes.set(ua, (scrapes.get(ua) ?? 0) + 1);
    return new Response(body(), { headers: { "Content-Type": "text/plain; version=0.0.4" } });
  },
});
console.log(server.port);
