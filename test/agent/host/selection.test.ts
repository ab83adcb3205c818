import { describe, expect, test } from "vitest";
import { instanceToken } from "../../../agent/inputs/host/series.ts";
import { seriesSelection } from "../../../agent/inputs/host/selection.ts";

describe("series selection", () => {
  test("globs match whole keys; excludes win over includes", () => {
    const s = seriesSelection(["cpu_*", "load?"], ["cpu_time_ms_total:cpu*"]);
    expect(s.includes("cpu_usage_percent:total")).toBe(true);
    expect(s.includes("cpu_time_ms_total:total:user")).toBe(true);
    expect(s.includes("cpu_time_ms_total:cpu3:user")).toBe(false);
    expect(s.includes("load1")).toBe(true);
    expect(s.includes("load15")).toBe(false);
    expect(s.includes("memory_total_bytes")).toBe(false);
  });

  test("regular-expression characters in patterns are literal", () => {
    const s = seriesSelection(["filesystem_size_bytes:mnt.data"], []);
    expect(s.includes("filesystem_size_bytes:mnt.data")).toBe(true);
    expect(s.includes("filesystem_size_bytes:mntXdata")).toBe(false);
  });

  test("nothing included selects nothing", () => {
    expect(seriesSelection([], []).includes("load1")).toBe(false);
  });
});

describe("instance tokens in metric ids", () => {
  test("mount points and odd characters", () => {
    expect(instanceToken("/")).toBe("root");
    expect(instanceToken("/boot/efi")).toBe("boot_efi");
    expect(instanceToken("/mnt/My Photos")).toBe("mnt_My_Photos");
    expect(instanceToken("eth0.100")).toBe("eth0.100");
    expect(instanceToken("cpu12")).toBe("cpu12");
  });
});
