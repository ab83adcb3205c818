/**
 * StatsD UDP load for bench/inputs-rate.ts: RATE lines a second, one line a datagram, to
 * 127.0.0.1:PORT for DURATION ms, over SERIES counters; prints one JSON line with what was sent.
 */
const port = Number(process.env.PORT);
const rate = Number(process.env.RATE ?? 10_000);
const duration = Number(process.env.DURATION ?? 60_000);
const series = Number(process.env.SERIES ?? 1000);
const socket = await Bun.udpSocket({});
const lines = Array.from({ length: series }, (_, i) => Buffer.from(`bench.load.c${i}:1|c|#shard:${i % 10}`));
let sent = 0;
const start = performance.now();
const end = start + duration;
while (performance.now() < end) {
  // Keep to the rate: send what the elapsed time allows, in packets of up to 256 datagrams.
  const due = Math.floor(((performance.now() - start) / 1000) * rate);
  while (sent < due) {
    const n = Math.min(256, due - sent);
    const batch: (Buffer | number | string)[] = [];
    for (let i = 0; i < n; i++) batch.push(lines[(sent + i) % series]!, port, "127.0.0.1");
    sent += socket.sendMany(batch as never);
  }
  await Bun.sleep(1);
}
socket.close();
console.log(JSON.stringify({ sent, seconds: (performance.now() - start) / 1000 }));
