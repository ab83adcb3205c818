import { describe, expect, it } from "vitest";
import type { ChunkSpan } from "../../agent/buffer/point-buffer.ts";
import { type ChunkSource, SendPlanner } from "../../agent/forward/send-planner.ts";

/** Chunks of 100 points each, with the time they were buffered. */
class FakeSource implements ChunkSource {
  chunks: { id: number; enq: number; n: number }[] = [];
  add(enq: number, count = 1) {
    for (let i = 0; i < count; i++) this.chunks.push({ id: this.chunks.length + 1, enq, n: 100 });
  }
  read(afterId: number, toId: number, maxPoints: number): ChunkSpan | undefined {
    const sel = this.chunks.filter((c) => c.id > afterId && c.id <= toId);
    if (sel.length === 0) return undefined;
    const take = sel.slice(0, Math.max(1, Math.floor(maxPoints / 100)));
    return { lo: take[0]!.id, hi: take.at(-1)!.id, points: take.length * 100, bodies: [], formats: [] };
  }
  firstAfter(id: number) {
    return this.chunks.find((c) => c.id > id);
  }
  lastBufferedBefore(afterId: number, time: number) {
    return this.chunks.filter((c) => c.id > afterId && c.enq < time).at(-1)?.id;
  }
}

describe("send planner", () => {
  it("sends fresh data first and replays the backlog oldest first within the rate limit", () => {
    let now = 100_000;
    const src = new FakeSource();
    src.add(0, 10); // an outage's backlog: chunks 1..10
    src.add(now - 1000, 2); // fresh: 11, 12
    const p = new SendPlanner(src, { batchPoints: 200, replayRate: 400, freshAgeMs: 10_000 }, () => now);

    const first = p.next();
    expect(first).toMatchObject({ replay: false, span: { lo: 11, hi: 12 } });
    // Burst of one second's worth (400 points), then the limit.
    expect(p.next()).toMatchObject({ replay: true, span: { lo: 1, hi: 2 } });
    expect(p.next()).toMatchObject({ replay: true, span: { lo: 3, hi: 4 } });
    const waiting = p.next();
    expect(waiting.span).toBeUndefined();
    expect(waiting.waitMs).toBeGreaterThan(0);

    // New fresh data is not held back by the limit.
    src.add(now, 1);
    expect(p.next()).toMatchObject({ replay: false, span: { lo: 13, hi: 13 } });

    now += 500; // 200 tokens
    expect(p.next()).toMatchObject({ replay: true, span: { lo: 5, hi: 6 } });
    expect(p.replaying).toBe(true);
    now += 10_000;
    const rest: number[] = [];
    for (let s = p.next(); s.span; s = p.next()) rest.push(s.span.lo);
    expect(rest).toEqual([7, 9]);
    expect(p.replaying).toBe(false);
  });

  it("turns fresh data that waited too long into backlog", () => {
    let now = 0;
    const src = new FakeSource();
    const p = new SendPlanner(src, { batchPoints: 100, replayRate: 100, freshAgeMs: 1000 }, () => now);
    src.add(0, 3);
    now = 5000; // e.g. the window was full, or the broker was down
    src.add(5000, 1);
    expect(p.next()).toMatchObject({ replay: false, span: { lo: 4 } });
    expect(p.next()).toMatchObject({ replay: true, span: { lo: 1 } });
  });

  it("replays without a limit when the rate is 0", () => {
    const src = new FakeSource();
    src.add(0, 50);
    const p = new SendPlanner(src, { batchPoints: 100, replayRate: 0, freshAgeMs: 10 }, () => 1_000_000);
    let n = 0;
    while (p.next().span) n++;
    expect(n).toBe(50);
  });
});
