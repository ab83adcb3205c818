import { describe, expect, it } from "vitest";
import { idPieces, matchesPieces, piecesSize, writePieces } from "../../../agent/inputs/prometheus/id-pieces.ts";

/** The text's pieces of `id` written in a pool, and a matcher over them (no hash, no length check before). */
function runsOf(text: string, id: string) {
  const runs = idPieces(text, 0, text.length, id);
  if (!runs) return undefined;
  const pool = new Uint8Array(piecesSize(runs) + 2);
  writePieces(pool, 2, runs);
  return { runs, matches: (t: string) => matchesPieces(`>${t}<`, 1, t.length + 1, `..${id}`, 2, pool, 2) };
}

describe("idPieces", () => {
  const id = 'req_total{code="200",feed="e",instance="h:1",instance_id="7",job="j",route="/r",service="s"}';

  it("reads a text with labels in any order as runs of its id, and matches it and nothing else", () => {
    const text = 'req_total{service="s",route="/r",code="200",instance_id="7"}';
    const r = runsOf(text, id)!;
    expect(r.runs.length / 2).toBeLessThanOrEqual(7);
    expect(r.matches(text)).toBe(true);
    // Every text of the same length that differs in one character, and shorter or longer ones.
    for (let i = 0; i < text.length; i++) expect(r.matches(text.slice(0, i) + (text[i] === "x" ? "y" : "x") + text.slice(i + 1))).toBe(false);
    expect(r.matches(text.slice(0, -1))).toBe(false);
    expect(r.matches(`${text}}`)).toBe(false);
    expect(r.matches("")).toBe(false);
  });

  it("sorted labels take the runs between the target's labels; a bare name one run", () => {
    const sorted = 'req_total{code="200",instance_id="7",route="/r",service="s"}';
    expect(runsOf(sorted, id)!.runs.length / 2).toBe(3);
    expect(runsOf("up", 'up{feed="e",instance="h:1",job="j"}')).toBeUndefined();
    expect(runsOf("node_load1", 'node_load1{feed="e",instance="h:1",job="j"}')!.runs).toEqual([0, 10]);
  });

  it("leaves texts that are not the id's labels as they are written", () => {
    for (const t of ['req_total{code="200", route="/r"}', 'req_total{code="200",}', "req_total{}", 'req_total{code="201"}', 'req_total{code="200",code="200"}', 'req_total{code="200"']) {
      const r = runsOf(t, id);
      if (r) expect(r.matches(t)).toBe(true);
    }
    expect(runsOf('req_total{code="200", route="/r"}', id)).toBeUndefined();
    expect(runsOf('req_total{code="201"}', id)).toBeUndefined();
    expect(runsOf("req_total{}", id)).toBeUndefined();
    expect(runsOf(`m{a="${"x".repeat(70_000)}"}`, `m{a="${"x".repeat(70_000)}",feed="e"}`)).toBeUndefined();
  });
});
