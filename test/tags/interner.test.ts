import { describe, expect, it } from "vitest";
import { Interner } from "../../src/tags/interner.ts";

describe("Interner", () => {
  it("answers equal strings, replaces tag values in place, and starts over when full", () => {
    const one = new Interner(2);
    expect(one.of("a")).toBe("a");
    expect(one.of(["b", "c"].join(""))).toBe("bc");
    const tags = { job: "node", host: "h1" };
    expect(one.values(tags)).toBe(tags);
    expect(tags).toEqual({ job: "node", host: "h1" });
    // Full (two entries) at the third distinct string: emptied, the answers stay equal.
    expect(one.of("a")).toBe("a");
    expect(one.of("bc")).toBe("bc");
  });
});
