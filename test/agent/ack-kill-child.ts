/**
 * Child process of buffer-acked.test.ts: appends numbered points to a real buffer file, reads
 * them as the send path does and acknowledges every other batch at once, the rest a little later
 * (out of order), printing the highest id acknowledged below which everything is committed,
 * until it is killed. Usage: bun ack-kill-child.ts <buffer.db>
 */
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const [path] = process.argv.slice(2);
const buffer = new PointBuffer(openDatabase(path!), { tenant: "t", feed: "f" }, { maxBytes: 1e12, maxAgeMs: 1e12, chunkPoints: 100, historyMs: 86_400_000 }, createEncoder(), {}, Date.now, 1);
let k = 0;
let after = 0;
for (;;) {
  await buffer.append([{ type: "gauge", id: "k", points: Array.from({ length: 300 }, (_, i) => ({ timestamp: k + i, value: k + i })) }]);
  k += 300;
  const spans: [number, number][] = [];
  for (let s = buffer.read(after, Number.MAX_SAFE_INTEGER, 100); s; s = buffer.read(after, Number.MAX_SAFE_INTEGER, 100)) {
    spans.push([s.lo, s.hi]);
    after = s.hi;
  }
  // Out of order: the later spans first, each in its own commit.
  for (const [lo, hi] of spans.reverse()) {
    buffer.remove(lo, hi);
    buffer.flush();
  }
  process.stdout.write(`acked ${after}\n`);
}
