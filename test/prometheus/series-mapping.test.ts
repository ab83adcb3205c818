import { describe, expect, it } from "vitest";
import { metricLabels, seriesId, seriesTags } from "../../src/prometheus/series-mapping.ts";

/** How a Prometheus series maps to a metric id and tags (docs/prometheus.md). */
describe("series mapping", () => {
  it("writes the id as the text format does: labels sorted, empty ones left out, values escaped", () => {
    expect(seriesId("up", {})).toBe("up");
    expect(seriesId("up", { __name__: "up", job: "" })).toBe("up");
    expect(seriesId("up", { job: "node", instance: "a:9100", __name__: "up" })).toBe('up{instance="a:9100",job="node"}');
    expect(seriesId("m", { b: "x", a: 'say "hi"\\now\nnext' })).toBe('m{a="say \\"hi\\"\\\\now\\nnext",b="x"}');
    // Sorted by code unit, as Prometheus sorts label names.
    expect(seriesId("m", { b: "1", B: "2", _a: "3" })).toBe('m{B="2",_a="3",b="1"}');
  });

  it("gives the labels as tags, the name as `metric`, a label called metric as exported_metric, and reads them back", () => {
    const tags = seriesTags("up", { __name__: "up", job: "node", metric: "m", empty: "" });
    expect(tags).toEqual({ job: "node", exported_metric: "m", metric: "up" });
    expect(metricLabels('up{job="node"}', tags)).toEqual({ job: "node", exported_metric: "m", __name__: "up" });
  });
});
