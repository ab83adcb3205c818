/**
 * The byte-string map (src/codec/bytes-map.ts) of remote write's and JSON ingest's fast paths: keys
 * are the bytes as sent, copied (the request's buffer is reused), found again after the table
 * grows, and the cache starts again empty past its bound.
 */
import { describe, expect, it } from "vitest";
import { BytesMap } from "../../src/codec/bytes-map.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("the byte-string map", () => {
  it("finds every key by its bytes, whatever the buffer around them, after growing many times", () => {
    const cache = new BytesMap<{ n: number }>(100_000);
    const keys = Array.from({ length: 20_000 }, (_, i) => `__name__=m,series=s${i},instance=i${i % 7}`);
    for (let i = 0; i < keys.length; i++) {
      // The key in the middle of a larger buffer, which is then overwritten.
      const buf = bytes(`xx${keys[i]}yy`);
      cache.set(buf, 2, buf.length - 2, { n: i });
      buf.fill(0);
    }
    expect(cache.size).toBe(keys.length);
    for (let i = 0; i < keys.length; i += 97) {
      const buf = bytes(`--${keys[i]}`);
      expect(cache.get(buf, 2, buf.length)?.n).toBe(i);
    }
    // A prefix, an extension and a one-byte change are other keys.
    const k = bytes(keys[5]!);
    expect(cache.get(k, 0, k.length - 1)).toBeUndefined();
    expect(cache.get(bytes(`${keys[5]}0`), 0, k.length + 1)).toBeUndefined();
    k[k.length - 3]! ^= 1;
    expect(cache.get(k, 0, k.length)).toBeUndefined();
  });

  it("tells keys apart by any one byte, in views at any offset of larger buffers", () => {
    // Eight bytes a step, then the rest one by one: every length up to 40 and every position.
    const cache = new BytesMap<{ n: number }>(100_000);
    const backing = new Uint8Array(4096);
    for (let len = 0; len <= 40; len++) {
      const key = Uint8Array.from({ length: len }, (_, i) => (len * 31 + i * 7) & 0xff);
      cache.set(key, 0, len, { n: len });
      for (const offset of [0, 1, 3, 5]) {
        const view = backing.subarray(offset + 17, offset + 17 + len + 8);
        view.set(key, 3);
        expect(cache.get(view, 3, 3 + len)?.n).toBe(len);
        for (let i = 0; i < len; i++) {
          view[3 + i]! ^= 0x80;
          expect(cache.get(view, 3, 3 + len)).toBeUndefined();
          view[3 + i]! ^= 0x80;
        }
        expect(cache.get(view, 3, 3 + len)?.n).toBe(len);
      }
    }
    // The same bytes in another buffer after one looked up in: found the same.
    const again = Uint8Array.from({ length: 40 }, (_, i) => (40 * 31 + i * 7) & 0xff);
    expect(cache.get(again, 0, 40)?.n).toBe(40);
  });

  it("starts again empty past its bound, and finds what is set after", () => {
    const cache = new BytesMap<{ n: number }>(100);
    for (let i = 0; i < 150; i++) {
      const b = bytes(`k${i}`);
      cache.set(b, 0, b.length, { n: i });
    }
    expect(cache.size).toBe(50);
    expect(cache.get(bytes("k10"), 0, 3)).toBeUndefined();
    expect(cache.get(bytes("k149"), 0, 4)?.n).toBe(149);
  });

  it("answers the same whether the keys come in the order of last time, another order, or after a restart", () => {
    const cache = new BytesMap<{ n: number }>(3_000);
    const keys = Array.from({ length: 2_000 }, (_, i) => bytes(`__name__=m,series=s${i}`));
    const expectAll = (order: number[]) => {
      for (const i of order) expect(cache.get(keys[i]!, 0, keys[i]!.length)?.n).toBe(i);
    };
    for (let i = 0; i < keys.length; i++) cache.set(keys[i]!, 0, keys[i]!.length, { n: i });
    const inOrder = keys.map((_, i) => i);
    expectAll(inOrder);
    expectAll(inOrder);
    // Every other key, then backwards, then shuffled: each guess is wrong at first.
    expectAll(inOrder.filter((i) => i % 2 === 0));
    expectAll([...inOrder].reverse());
    let seed = 7;
    const shuffled = [...inOrder].sort(() => ((seed = (seed * 48271) % 2147483647) % 3) - 1);
    expectAll(shuffled);
    expectAll(shuffled);
    // An unknown key between known ones, and a key the guess's length but other bytes.
    expect(cache.get(bytes("__name__=m,series=sX"), 0, 20)).toBeUndefined();
    expectAll(inOrder.slice(0, 10));
    const other = bytes("__name__=m,series=s9");
    other[other.length - 1] = 0x78;
    expect(cache.get(other, 0, other.length)).toBeUndefined();
    // Past the bound the table starts again: old guesses must not find entries that are gone.
    for (let i = 0; i < 1_500; i++) {
      const b = bytes(`other${i}`);
      cache.set(b, 0, b.length, { n: -i });
    }
    expect(cache.size).toBe(500);
    for (const i of inOrder.slice(0, 50)) expect(cache.get(keys[i]!, 0, keys[i]!.length)).toBeUndefined();
    for (let i = 1_000; i < 1_500; i++) expect(cache.get(bytes(`other${i}`), 0, `other${i}`.length)?.n).toBe(-i);
  });

  it("makes room for keys a new order moves by compacting its arena, not doubling it, while a quarter of it is free", () => {
    const cache = new BytesMap<number>(100_000);
    // 300 keys of 120 bytes (128 in the arena): 59 % of its first 64 KiB.
    const keys = Array.from({ length: 300 }, (_, i) => bytes(`k${String(i).padStart(4, "0")}`.padEnd(120, ".")));
    for (const [i, k] of keys.entries()) cache.set(k, 0, k.length, i);
    // Keys move once an epoch (eight lookups an entry) has passed since they were set.
    for (let pass = 0; pass < 8; pass++) for (const [i, k] of keys.entries()) expect(cache.get(k, 0, k.length)).toBe(i);
    const before = cache.byteLength;
    // A sender's new order: learnt in the first pass, its keys moved to the arena's end in the second.
    const reversed = [...keys.keys()].reverse();
    for (let pass = 0; pass < 2; pass++) for (const i of reversed) expect(cache.get(keys[i]!, 0, keys[i]!.length)).toBe(i);
    // Compacted in place: what it holds more is the compaction's kept arrays, not a second arena
    // (64 KiB more, doubled, on the code before).
    expect(cache.byteLength - before).toBeLessThan(16 * 1024);
    for (let pass = 0; pass < 2; pass++) for (const i of reversed) expect(cache.get(keys[i]!, 0, keys[i]!.length)).toBe(i);
    for (const [i, k] of keys.entries()) expect(cache.get(k, 0, k.length)).toBe(i);
  });

  it("moves no key of senders that read the same keys round and round, once their keys are in order", () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => bytes(`__name__=m,instance=a,series=s${i}`));
    const read = (cache: BytesMap<number>, order: number[], rounds: number) => {
      let wrong = 0;
      for (let r = 0; r < rounds; r++) for (const i of order) if (cache.get(keys[i]!, 0, keys[i]!.length) !== i) wrong++;
      expect(wrong).toBe(0);
    };
    // One sender, its keys set in the order it reads them: already in order, nothing moves
    // (every key moved each epoch, eight rounds, on the code before).
    const one = new BytesMap<number>(100_000);
    for (const [i, k] of keys.entries()) one.set(k, 0, k.length, i);
    const inOrder = keys.map((_, i) => i);
    read(one, inOrder, 24);
    expect(one.keysMoved).toBe(0);
    // 40 shards, each reading its keys twice in a row, after a cache filled in another order
    // (warmed from the store after a restart): every key moves once, into its shard's order.
    const shards = new BytesMap<number>(100_000);
    for (const i of [...inOrder].reverse()) shards.set(keys[i]!, 0, keys[i]!.length, i);
    const requests = Array.from({ length: 40 }, (_, s) => inOrder.filter((i) => i % 40 === s));
    const round = () => {
      for (const mine of requests) read(shards, [...mine, ...mine], 1);
    };
    for (let r = 0; r < 24; r++) round();
    const settled = shards.keysMoved;
    expect(settled).toBeGreaterThanOrEqual(keys.length - 40);
    expect(settled).toBeLessThanOrEqual(2 * keys.length);
    for (let r = 0; r < 16; r++) round();
    expect(shards.keysMoved).toBe(settled);
  });

  it("keeps every key through many epochs of senders that change their order, its arena bounded", () => {
    // Keys move to the arena's end as they are read in a new order, and the arena is compacted
    // and the entries numbered anew: every answer checked against a Map, over many epochs.
    const cache = new BytesMap<{ n: number }>(100_000);
    const reference = new Map<string, number>();
    const key = (i: number) => `__name__=bench_value,group=g${i % 50},instance=127.0.0.1:${40_000 + (i % 10)},series=s${i}`;
    let seed = 11;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    let keyBytes = 0;
    for (let round = 0; round < 40; round++) {
      // A few new keys each round, set in the middle of a buffer that is overwritten after.
      for (let j = 0; j < 150; j++) {
        const i = reference.size;
        const b = bytes(`..${key(i)}`);
        cache.set(b, 2, b.length, { n: i });
        b.fill(0);
        reference.set(key(i), i);
        keyBytes += b.length - 2;
      }
      // Senders: shards of the keys in a order of their own, each read twice in a row, one
      // request's keys in a buffer of their own (as remote write's requests).
      const shards = 1 + Math.floor(random() * 40);
      const all = [...reference.keys()];
      for (let s = 0; s < shards; s++) {
        const mine = all.filter((_, i) => (i * 7 + round) % shards === s);
        const request = bytes(mine.join("") + mine.join(""));
        let o = 0;
        for (const k of [...mine, ...mine]) {
          expect(cache.get(request, o, o + k.length)?.n).toBe(reference.get(k));
          o += k.length;
        }
      }
      // An unknown key is not found, whatever was read before it.
      const unknown = bytes(`${key(1)}x`);
      expect(cache.get(unknown, 0, unknown.length)).toBeUndefined();
    }
    expect(cache.size).toBe(reference.size);
    expect(cache.byteLength).toBeLessThan(8 * keyBytes);
  });
});
