import { describe, expect, it } from "vitest";
import { checkTimeConstraint, satisfiesTimeConstraint, TimeConstraintError } from "../../src/alerts/actions/time-constraint.ts";

const at = (iso: string) => Date.parse(iso);

describe("action calendars (TimeConstraint)", () => {
  it("relative hours, inclusive, wrapping past midnight, inverted by inRange false", () => {
    const office = { startTime: "09:00", endTime: "18:00" };
    expect(satisfiesTimeConstraint(office, at("2026-03-04T12:00:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(office, at("2026-03-04T18:00:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(office, at("2026-03-04T18:01:00Z"))).toBe(false);
    expect(satisfiesTimeConstraint({ ...office, inRange: false }, at("2026-03-04T20:00:00Z"))).toBe(true);
    const night = { startTime: "22:00", endTime: "06:00" };
    expect(satisfiesTimeConstraint(night, at("2026-03-04T23:30:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(night, at("2026-03-04T03:00:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(night, at("2026-03-04T12:00:00Z"))).toBe(false);
  });

  it("relative months and weekdays, long or short names", () => {
    const winter = { startTime: "Dec", endTime: "February" };
    expect(satisfiesTimeConstraint(winter, at("2026-01-15T00:00:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(winter, at("2026-07-15T00:00:00Z"))).toBe(false);
    const workdays = { startTime: "Monday,09:00", endTime: "Fri,17:00" };
    expect(satisfiesTimeConstraint(workdays, at("2026-03-04T10:00:00Z"))).toBe(true); // a Wednesday
    expect(satisfiesTimeConstraint(workdays, at("2026-03-08T10:00:00Z"))).toBe(false); // a Sunday
  });

  it("reads times in the constraint's zone", () => {
    const office = { startTime: "09:00", endTime: "18:00" };
    const noonUtc = at("2026-03-04T12:00:00Z");
    expect(satisfiesTimeConstraint({ ...office, timeZoneName: "GMT-5:00" }, noonUtc)).toBe(false); // 07:00 there
    expect(satisfiesTimeConstraint({ ...office, timeZoneName: "GMT+2" }, noonUtc)).toBe(true);
    expect(satisfiesTimeConstraint({ ...office, timeZoneName: "Asia/Tokyo" }, noonUtc)).toBe(false); // 21:00 there
    expect(satisfiesTimeConstraint({ ...office, timeZoneName: "Europe/Paris" }, noonUtc)).toBe(true);
  });

  it("absolute intervals, optionally with a time and a zone", () => {
    const march = { startTime: "2026.03.01", endTime: "2026.03.31,23:59", relative: false };
    expect(satisfiesTimeConstraint(march, at("2026-03-15T00:00:00Z"))).toBe(true);
    expect(satisfiesTimeConstraint(march, at("2026-04-01T00:00:00Z"))).toBe(false);
    const tokyoDay = { startTime: "2026.03.04,00:00", endTime: "2026.03.04,23:59", relative: false, timeZoneName: "Asia/Tokyo" };
    expect(satisfiesTimeConstraint(tokyoDay, at("2026-03-03T16:00:00Z"))).toBe(true); // 01:00 on the 4th in Tokyo
    expect(satisfiesTimeConstraint(tokyoDay, at("2026-03-04T16:00:00Z"))).toBe(false);
  });

  it("rejects what it cannot read", () => {
    for (const tc of [
      { startTime: "Someday", endTime: "Dec" },
      { startTime: "25:00", endTime: "26:00" },
      { startTime: "Jan,Mon,09:00,x", endTime: "Dec" },
      { startTime: "2026-03-01", endTime: "2026.03.02", relative: false },
      { startTime: "09:00", endTime: "10:00", timeZoneName: "Mars/Olympus" },
    ]) {
      expect(() => checkTimeConstraint(tc), JSON.stringify(tc)).toThrow(TimeConstraintError);
    }
  });
});
