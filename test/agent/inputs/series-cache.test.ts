import { describe, expect, it } from "vitest";
import { SeriesCache } from "../../../agent/inputs/prometheus/series-cache.ts";

/** Finds `text` inside a body that has it between other lines, as a scrape's body does. */
const find = (c: SeriesCache, text: string) => {
  const body = `# HELP x\n${text} 1\n`;
  return c.find(body, 9, 9 + text.length);
};
const add = (c: SeriesCache, text: string, id?: string) => {
  const body = `junk\n${text} 2\n`;
  return c.add(body, 5, 5 + text.length, id);
};

describe("SeriesCache", () => {
  it("finds each text added, by its exact characters, with its id and fields", () => {
    const c = new SeriesCache();
    const a = add(c, 'up{job="a"}', "up-a");
    const b = add(c, 'up{job="b"}', "up-b");
    const dropped = add(c, "dropped_metric");
    expect(find(c, 'up{job="a"}')).toBe(a);
    expect(find(c, 'up{job="b"}')).toBe(b);
    expect(find(c, 'up{job="c"}')).toBe(-1);
    expect(find(c, 'up{job="a"} ')).toBe(-1);
    expect(find(c, "up")).toBe(-1);
    expect(c.id(a)).toBe("up-a");
    expect(c.id(dropped)).toBeUndefined();
    expect(find(c, "dropped_metric")).toBe(dropped);
    expect([c.seen[a], c.defGen[a], c.explicit[a]]).toEqual([-1, 0, 0]);
    expect(c.size).toBe(3);
  });

  it("keeps texts with characters beyond one byte, and tells apart texts that differ only there", () => {
    const c = new SeriesCache();
    const greek = add(c, 'temp{city="Αθήνα"}', "g");
    const latin = add(c, 'temp{city="Zürich"}', "l");
    const other = add(c, 'temp{city="Αθήνb"}', "o");
    expect(find(c, 'temp{city="Αθήνα"}')).toBe(greek);
    expect(find(c, 'temp{city="Zürich"}')).toBe(latin);
    expect(find(c, 'temp{city="Αθήνb"}')).toBe(other);
    expect(find(c, 'temp{city="Αθήνc"}')).toBe(-1);
  });

  it("grows past its first sizes: 50,000 series, every one found again", () => {
    const c = new SeriesCache();
    const texts = Array.from({ length: 50_000 }, (_, i) => `requests_total{route="/r${i % 100}",instance_id="${i}"}`);
    const entries = texts.map((t, i) => add(c, t, `id-${i}`));
    expect(c.size).toBe(50_000);
    texts.forEach((t, i) => {
      const e = find(c, t);
      expect(e).toBe(entries[i]);
      expect(c.id(e)).toBe(`id-${i}`);
    });
  });

  it("removes what it is told to, renumbers when packing, and keeps every field of the rest", () => {
    const c = new SeriesCache();
    const texts = Array.from({ length: 1000 }, (_, i) => (i % 10 === 0 ? `wide_ü{n="${i}",s="Ω"}` : `m{n="${i}"}`));
    for (const [i, t] of texts.entries()) {
      const e = add(c, t, `id-${i}`);
      c.seen[e] = i;
      c.defGen[e] = i % 7;
      c.explicit[e] = i % 2;
    }
    // A few removed: numbers stay.
    c.remove((e) => c.id(e) === "id-3");
    expect(find(c, texts[3]!)).toBe(-1);
    expect(find(c, texts[4]!)).toBe(4);
    // Most removed: the rest is packed and renumbered, and found with its fields.
    c.remove((e) => c.seen[e]! % 3 !== 0);
    expect(c.size).toBe(333);
    expect([...c.entries()]).toHaveLength(333);
    for (const [i, t] of texts.entries()) {
      const e = find(c, t);
      if (i % 3 !== 0 || i === 3) {
        expect(e).toBe(-1);
        continue;
      }
      expect(c.id(e)).toBe(`id-${i}`);
      expect([c.seen[e], c.defGen[e], c.explicit[e]]).toEqual([i, i % 7, i % 2]);
    }
    // And it takes new series after that.
    const e = add(c, 'm{n="new"}', "new");
    expect(find(c, 'm{n="new"}')).toBe(e);
    expect(c.size).toBe(334);
  });

  it("keeps ids in one string once sealed: each id read back the same before and after, wide ids and dropped series too", () => {
    const c = new SeriesCache();
    const ids = (i: number) => (i % 50 === 0 ? undefined : i % 7 === 0 ? `m{city="Αθήνα",n="${i}"}` : `m{n="${i}",route="/r${i % 13}"}`);
    const entries: number[] = [];
    const check = () => {
      for (const [i, e] of entries.entries()) expect(c.id(e)).toBe(ids(i));
    };
    for (let round = 0; round < 3; round++) {
      for (let i = round * 400; i < (round + 1) * 400; i++) {
        entries.push(add(c, `m{n="${i}"}`, ids(i)));
        c.seen[entries[i]!] = i;
      }
      check();
      c.seal();
      check();
    }
    // Removing a third and more packs the cache: ids follow their entries' new numbers.
    c.remove((e) => c.seen[e]! % 2 === 1);
    for (let i = 0; i < 1200; i++) {
      const e = find(c, `m{n="${i}"}`);
      if (i % 2 === 1) expect(e).toBe(-1);
      else expect(c.id(e)).toBe(ids(i));
    }
  });
});
