import { describe, expect, it } from "vitest";
import { SeriesCache } from "../../../agent/inputs/prometheus/series-cache.ts";
import { parseSeries } from "../../../src/prometheus/exposition.ts";
import { seriesId } from "../../../src/prometheus/series-mapping.ts";
import { joinTargetLabels } from "../../../src/prometheus/target-labels.ts";

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

/** Ids as the scrape loop gives them (target labels joined). */
const target = { feed: "edge-1", instance: "127.0.0.1:9100", job: "node" };
const targetCache = () => new SeriesCache();
const idOf = (text: string, honorLabels = false, labels: Record<string, string> = target) => {
  const p = parseSeries(text, new Map());
  const joined = joinTargetLabels(p.name, p.labels, labels, honorLabels);
  return seriesId(joined.__name__!, joined);
};

describe("SeriesCache with texts kept as runs of their ids", () => {
  it("keeps no text bytes for sorted labels, none, and labels among the target's; finds each exactly", () => {
    const c = targetCache();
    const texts = ["node_load1", 'node_cpu_seconds_total{cpu="0",mode="idle"}', 'm{a="1",host="h",le="0.5",zone="z"}', 'm{address="x",interface="eth0"}', 'm{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb"}'.replace(/,nl="a\\nb"/, "")];
    const entries = texts.map((t) => add(c, t, idOf(t)));
    expect(c.textBytes.text).toBe(0);
    for (const round of [0, 1]) {
      texts.forEach((t, i) => {
        expect(find(c, t)).toBe(entries[i]);
        expect(c.id(entries[i]!)).toBe(idOf(t));
      });
      // Near misses: the id itself, a prefix, a text with a target label written in, one more character.
      expect(find(c, idOf("node_load1"))).toBe(-1);
      expect(find(c, "node_load")).toBe(-1);
      expect(find(c, "node_load1{}")).toBe(-1);
      expect(find(c, 'node_load1{job="node"}')).toBe(-1);
      expect(find(c, 'node_cpu_seconds_total{cpu="0",mode="idlf"}')).toBe(-1);
      expect(find(c, 'node_cpu_seconds_total{cpu="0",feed="edge-1",mode="idle"}')).toBe(-1);
      expect(find(c, 'm{a="1",host="h",le="0.5",zone="z",}')).toBe(-1);
      if (round === 0) c.seal();
    }
  });

  it("keeps unsorted labels and clashing ones as runs too, and the text of series that are not their ids' labels", () => {
    const c = targetCache();
    const runs = ['m{b="1",a="2"}', 'm{z="other",a="1"}', 'synthetic_requests_total{service="svc-1",route="/api/v1/r1",code="200",instance_id="1"}'];
    // Spaced, an escape the id writes another way, empty braces, a trailing comma, a label that clashes with the target's (kept as exported_job), a name shorter than a run.
    const kept = ['m{a="1", b="2"}', 'm{p="\\a"}', "m{}", 'm{a="1",}', 'm{job="other",a="1"}', "up"];
    const entries = [...runs, ...kept].map((t) => add(c, t, idOf(t)));
    expect(c.textBytes.text).toBe(kept.join("").length);
    // Five runs each (16 bytes), the synthetic series' 85 characters too.
    expect(c.textBytes.pieces).toBe(3 * 16);
    // A dropped series (no id) keeps its text.
    const dropped = add(c, 'dropped{a="1"}');
    expect(c.textBytes.text).toBe(kept.join("").length + 'dropped{a="1"}'.length);
    expect(find(c, 'dropped{a="1"}')).toBe(dropped);
    // The sorted form of an unsorted text has the same id and is another text: another entry.
    const sorted = add(c, 'm{a="2",b="1"}', idOf('m{a="2",b="1"}'));
    expect(c.id(sorted)).toBe(c.id(entries[0]!));
    c.seal();
    for (const [i, t] of [...runs, ...kept].entries()) expect(find(c, t)).toBe(entries[i]);
    expect(find(c, 'm{a="1",z="other"}')).toBe(-1);
    expect(find(c, 'synthetic_requests_total{service="svc-1",route="/api/v1/r1",code="200",instance_id="10"}')).toBe(-1);
    expect(find(c, 'synthetic_requests_total{service="svc-1",route="/api/v1/r1",code="200",instance="1"}')).toBe(-1);
    expect(find(c, 'm{a="2",b="1"}')).toBe(sorted);
    expect(find(c, "m")).toBe(-1);
    expect(find(c, 'm{p="\\\\a"}')).toBe(-1);
  });

  it("runs longer than 255 characters are split; a text one character off a long run is not found", () => {
    const c = targetCache();
    const long = `m{path="${"x".repeat(600)}",z="1"}`;
    const e = add(c, long, idOf(long));
    expect(c.textBytes.text).toBe(0);
    c.seal();
    expect(find(c, long)).toBe(e);
    expect(find(c, long.replace("xxxxxxxxxx\"", "xxxxxxxxxy\""))).toBe(-1);
    expect(find(c, long.replace('"x', '"y'))).toBe(-1);
  });

  it("with honor_labels, an exposed label that wins reads in its place", () => {
    const c = targetCache();
    const t = 'm{instance="app-1",job="api",x="1"}';
    const e = add(c, t, idOf(t, true));
    expect(c.id(e)).toBe('m{feed="edge-1",instance="app-1",job="api",x="1"}');
    expect(c.textBytes.text).toBe(0);
    c.seal();
    expect(find(c, t)).toBe(e);
    expect(find(c, 'm{instance="127.0.0.1:9100",job="node",x="1"}')).toBe(-1);
    expect(find(c, 'm{x="1"}')).toBe(-1);
  });

  it("texts beyond one byte a character stay apart; a wide target label still lets Latin-1 texts go", () => {
    const labels = { ...target, site: "Αθήνα" };
    const c = targetCache();
    const wide = 'temp{city="Zürich",room="Ωmega"}';
    const plain = 'temp{city="Zürich"}';
    const w = add(c, wide, idOf(wide, false, labels));
    const p = add(c, plain, idOf(plain, false, labels));
    expect(c.textBytes.text).toBe(0);
    c.seal();
    expect(find(c, wide)).toBe(w);
    expect(find(c, plain)).toBe(p);
    expect(c.id(p)).toBe('temp{city="Zürich",feed="edge-1",instance="127.0.0.1:9100",job="node",site="Αθήνα"}');
    expect(find(c, 'temp{city="Zürich",site="Αθήνα"}')).toBe(-1);
  });

  it("answers as a cache of every text would: random label sets, orders and target labels, through seals and packing", () => {
    let seed = 27;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const names = ["a", "exported_job", "feed", "host", "instance", "job", "le", "zone"];
    const values = ["", "1", "node", "edge-1", "127.0.0.1:9100", 'q"x', "b\\s"];
    const write = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
    for (const honor of [false, true]) {
      const labels: Record<string, string> = { feed: "edge-1", instance: "127.0.0.1:9100", job: "node" };
      if (honor) labels.zone = "eu";
      const c = targetCache();
      const byText = new Map<string, number>();
      const texts: string[] = [];
      for (let i = 0; i < 3000; i++) {
        const n = rand(4);
        const picked = [...new Set(Array.from({ length: n }, () => names[rand(names.length)]!))];
        if (rand(4) > 0) picked.sort();
        const pairs = picked.map((k) => `${k}="${write(values[1 + rand(values.length - 1)]!)}"`);
        const text = `m${rand(3)}${pairs.length > 0 || rand(5) === 0 ? `{${pairs.join(",")}}` : ""}`;
        if (byText.has(text)) continue;
        const id = rand(20) === 0 ? undefined : idOf(text, honor, labels);
        byText.set(text, add(c, text, id));
        texts.push(text);
        if (i % 700 === 0) c.seal();
      }
      // Those with a clashing label, the dropped ones and the shortest with their text, the rest as runs of their ids.
      expect(c.textBytes.text).toBeGreaterThan(0);
      expect(c.textBytes.text).toBeLessThan(texts.join("").length * 0.8);
      const check = () => {
        for (const t of texts) expect(find(c, t)).toBe(byText.get(t));
        // Texts not in the cache, near each one: none found.
        for (const t of texts.slice(0, 500)) {
          for (const miss of [`${t} `, t.slice(0, -1), t.replace("m", "n"), t.replace('"', "'"), t.replace("}", ',job="node"}'), idOf(t, honor, labels)]) {
            if (!byText.has(miss)) expect(find(c, miss)).toBe(-1);
          }
        }
      };
      c.seal();
      check();
      // Remove half: packed and renumbered, every one left found again.
      const dropped = new Set(texts.filter((_, i) => i % 2 === 0));
      const entryText = new Map([...byText].map(([t, e]) => [e, t]));
      c.remove((e) => dropped.has(entryText.get(e)!));
      const left = texts.filter((t) => !dropped.has(t));
      byText.clear();
      for (const t of left) {
        const e = find(c, t);
        expect(e).toBeGreaterThanOrEqual(0);
        byText.set(t, e);
      }
      for (const t of dropped) expect(find(c, t)).toBe(-1);
      texts.length = 0;
      texts.push(...left);
      check();
    }
  });
});
