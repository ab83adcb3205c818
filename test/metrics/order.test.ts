import { describe, expect, it } from "vitest";
import { effectiveLimit, parseOrder, resolveOrder } from "../../src/metrics/order.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parseOrder", () => {
  it.each([
    ["asc", "asc"],
    ["ASC", "asc"],
    ["Desc", "desc"],
    ["DESC", "desc"],
  ])("%s → %s", (text, order) => {
    expect(parseOrder(text)).toBe(order);
  });

  it.each(["", "up", "ascending", " asc"])("%j is a 400", (text) => {
    expectApiError(() => parseOrder(text), 400, `${text} is not a recognized order`);
  });
});

describe("resolveOrder defaults (spec Limits table)", () => {
  // [limit, startGiven, endGiven] → ascending only for a positive limit with start alone.
  const cases: [number | undefined, boolean, boolean][] = [];
  for (const limit of [undefined, -1, 0, 5]) {
    for (const startGiven of [false, true]) {
      for (const endGiven of [false, true]) cases.push([limit, startGiven, endGiven]);
    }
  }
  it.each(cases)("limit %s, start given %s, end given %s", (limit, startGiven, endGiven) => {
    const expected = limit !== undefined && limit > 0 && startGiven && !endGiven ? "asc" : "desc";
    expect(resolveOrder(undefined, limit, startGiven, endGiven)).toBe(expected);
  });

  it("without a limit the order is descending", () => {
    expect(resolveOrder(undefined, undefined, true, false)).toBe("desc");
  });

  it("an explicit order wins over every default", () => {
    expect(resolveOrder("asc", undefined, false, false)).toBe("asc");
    expect(resolveOrder("DESC", 10, true, false)).toBe("desc");
  });

  it("an unknown explicit order is a 400", () => {
    expectApiError(() => resolveOrder("sideways", 1, true, false), 400, "sideways is not a recognized order");
  });
});

describe("effectiveLimit", () => {
  it("absent, zero and negative mean no limit", () => {
    expect(effectiveLimit(undefined)).toBeUndefined();
    expect(effectiveLimit(0)).toBeUndefined();
    expect(effectiveLimit(-3)).toBeUndefined();
    expect(effectiveLimit(7)).toBe(7);
  });
});
