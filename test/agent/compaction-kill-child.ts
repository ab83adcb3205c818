/**
 * Child process of buffer-compaction-kill.test.ts: appends numbered points to a real buffer
 * file and compacts it over and over (every row counts as old), printing what is committed,
 * until it is killed. Usage: bun compaction-kill-child.ts <buffer.db> <first point number>
 */
import { DEFAULT_COMPACTION } from "../../agent/buffer/compaction.ts";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const [path, firstArg] = process.argv.slice(2);
const buffer = new PointBuffer(openDatabase(path!), { tenant: "t", feed: "f" }, { maxBytes: 1e12, maxAgeMs: 1e12, chunkPoints: 1000 }, createEncoder(), {}, Date.now, 1);
const dec = createDecoder();
// Large merged rows make every compaction re-encode up to 200,000 points: tens of milliseconds, for the kill to land in.
const options = { ...DEFAULT_COMPACTION, minAgeMs: 0, windowMs: 1e12, maxPoints: 200_000, maxBytes: 16 * 1024 * 1024 };
let k = Number(firstArg);
for (;;) {
  const from = k;
  // 2,000 points in 20 series per append: each compaction merges it into the previous merged row.
  const writes = Array.from({ length: 20 }, (_, s) => ({ type: "gauge" as const, id: `s${s}`, points: Array.from({ length: 100 }, (_, i) => ({ timestamp: from + i, value: (from + i) / 100 })) }));
  await buffer.append(writes);
  k += 100;
  process.stdout.write(`committed ${k}\n`);
  process.stdout.write("compacting\n");
  buffer.compact(dec, options);
  process.stdout.write("compacted\n");
}
