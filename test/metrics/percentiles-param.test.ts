import { describe, expect, it } from "vitest";
import { parsePercentiles } from "../../src/metrics/percentiles-param.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parsePercentiles", () => {
  const values = (text: string) => parsePercentiles(text).map((p) => p.quantile);

  it("parses request values in order, keeping the text as written", () => {
    expect(values("50.0,90,99.9")).toEqual([50, 90, 99.9]);
    expect(parsePercentiles("50.0,90")).toEqual([
      { quantile: 50, original: "50.0" },
      { quantile: 90, original: "90" },
    ]);
    expect(values("0,100")).toEqual([0, 100]);
    expect(parsePercentiles(" 75 ")).toEqual([{ quantile: 75, original: "75" }]);
  });

  it("drops trailing commas", () => {
    expect(values("90,")).toEqual([90]);
    expect(values("90,,")).toEqual([90]);
  });

  it.each(["", ",90", "90,,95", "abc", "101", "-1", "NaN", "50%", ","])("%j is a 400", (text) => {
    expectApiError(() => parsePercentiles(text), 400, `Invalid percentiles: ${text}`);
  });
});
