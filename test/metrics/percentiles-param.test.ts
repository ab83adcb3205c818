import { describe, expect, it } from "vitest";
import { parsePercentiles } from "../../src/metrics/percentiles-param.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parsePercentiles", () => {
  it("parses request values in order", () => {
    expect(parsePercentiles("50.0,90,99.9")).toEqual([50, 90, 99.9]);
    expect(parsePercentiles("0,100")).toEqual([0, 100]);
    expect(parsePercentiles(" 75 ")).toEqual([75]);
  });

  it("drops trailing commas", () => {
    expect(parsePercentiles("90,")).toEqual([90]);
    expect(parsePercentiles("90,,")).toEqual([90]);
  });

  it.each(["", ",90", "90,,95", "abc", "101", "-1", "NaN", "50%", ","])("%j is a 400", (text) => {
    expectApiError(() => parsePercentiles(text), 400, `Invalid percentiles: ${text}`);
  });
});
