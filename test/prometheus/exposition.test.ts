import { describe, expect, test } from "vitest";
import { expositionFormat, parseExposition, parseSampleValue, parseSeries } from "../../src/prometheus/exposition.ts";
import { formatGoFloatG, formatOpenMetricsFloat } from "../../src/prometheus/float-format.ts";

function read(body: string, format: "text" | "openmetrics" = "text") {
  const samples: [string, number, number | undefined][] = [];
  const invalid: [number, string][] = [];
  const r = parseExposition(body, format, {
    sample: (b, start, end, v, t) => samples.push([b.slice(start, end), v, t]),
    invalid: (line, _text, reason) => invalid.push([line, reason]),
  });
  return { samples, invalid, types: r.types };
}

// The example of the text format's documentation (exposition_formats.md), restated.
const TEXT = `# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="1"} 133988
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320

# Finally a summary, which has a complex representation, too:
# HELP rpc_duration_seconds A summary of the RPC duration in seconds.
# TYPE rpc_duration_seconds summary
rpc_duration_seconds{quantile="0.01"} 3102
rpc_duration_seconds{quantile="0.5"} 4773
rpc_duration_seconds{quantile="1"} 76656
rpc_duration_seconds_sum 1.7560473e+07
rpc_duration_seconds_count 2693
`;

describe("text format 0.0.4", () => {
  test("every sample of the documented example, with its timestamp", () => {
    const r = read(TEXT);
    expect(r.invalid).toEqual([]);
    expect(r.samples).toHaveLength(15);
    expect(r.samples[0]).toEqual(['http_requests_total{method="post",code="200"}', 1027, 1395066363000]);
    expect(r.samples[1]).toEqual(['http_requests_total{method="post",code="400"}', 3, 1395066363000]);
    expect(r.samples[3]).toEqual(["metric_without_timestamp_and_labels", 12.47, undefined]);
    expect(r.samples[4]).toEqual(['something_weird{problem="division by zero"}', Number.POSITIVE_INFINITY, -3982045]);
    expect(r.types.get("http_request_duration_seconds")).toBe("histogram");
  });

  test("label values are unescaped; histogram le and summary quantile written as Prometheus 3 stores them", () => {
    const r = read(TEXT);
    expect(parseSeries(r.samples[2]![0], r.types).labels).toEqual([
      ["path", "C:\\DIR\\FILE.TXT"],
      ["error", 'Cannot find file:\n"FILE.TXT"'],
    ]);
    const les = r.samples.filter(([s]) => s.includes("_bucket")).map(([s]) => parseSeries(s, r.types).labels[0]![1]);
    expect(les).toEqual(["0.05", "1.0", "+Inf"]);
    const qs = r.samples.filter(([s]) => s.includes("quantile")).map(([s]) => parseSeries(s, r.types).labels[0]![1]);
    expect(qs).toEqual(["0.01", "0.5", "1.0"]);
    // Without the family's type, a label called le is left as written.
    expect(parseSeries('x_bucket{le="1"}', new Map()).labels).toEqual([["le", "1"]]);
  });

  test("a bad line is reported and skipped; the lines around it count", () => {
    const r = read('a 1\nb{x="1} 2\nc{x="1"} nope\nd{1x="2"} 3\ne 4 5 6\nf{x="1",x="2"} 7\ng{x="1",} 8\n');
    expect(r.samples.map(([s]) => s)).toEqual(["a", 'f{x="1",x="2"}', 'g{x="1",}']);
    expect(r.invalid.map(([l]) => l)).toEqual([2, 3, 4, 5]);
    expect(() => parseSeries('f{x="1",x="2"}')).toThrow(/appears twice/);
    expect(parseSeries('g{x="1",}').labels).toEqual([["x", "1"]]);
  });

  test("blanks and tabs, CRLF, comments, empty label sets", () => {
    const r = read("  # just a comment\r\n\tspaced{a = \"1\" , b=\"2\"}\t 5\r\nempty{} 1\n");
    expect(r.invalid).toEqual([]);
    expect(r.samples).toEqual([
      ['spaced{a = "1" , b="2"}', 5, undefined],
      ["empty{}", 1, undefined],
    ]);
    expect(parseSeries('spaced{a = "1" , b="2"}')).toEqual({ name: "spaced", labels: [["a", "1"], ["b", "2"]] });
    expect(parseSeries("empty{}")).toEqual({ name: "empty", labels: [] });
  });
});

const OM = `# TYPE acme_http_router_request_seconds summary
# UNIT acme_http_router_request_seconds seconds
# HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.
acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32
acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0
acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0
# TYPE foo counter
foo_total 17.0 1520879607.789 # {trace_id="KOO5S4vxi0o"} 0.67
foo_created 1520872607.123
# TYPE hist histogram
hist_bucket{le="0.01"} 0 # {trace_id="a"} 0.005 123.45
hist_bucket{le="+Inf"} 17
hist_count 17
hist_sum 324789.3
# EOF
`;

describe("OpenMetrics 1.0", () => {
  test("samples, seconds timestamps, exemplars ignored, _created kept as a series", () => {
    const r = read(OM, "openmetrics");
    expect(r.invalid).toEqual([]);
    expect(r.samples).toEqual([
      ['acme_http_router_request_seconds_sum{path="/api/v1",method="GET"}', 9036.32, undefined],
      ['acme_http_router_request_seconds_count{path="/api/v1",method="GET"}', 807283, undefined],
      ['acme_http_router_request_seconds_created{path="/api/v1",method="GET"}', 1605281325, undefined],
      ["foo_total", 17, 1520879607789],
      ["foo_created", 1520872607.123, undefined],
      ['hist_bucket{le="0.01"}', 0, undefined],
      ['hist_bucket{le="+Inf"}', 17, undefined],
      ["hist_count", 17, undefined],
      ["hist_sum", 324789.3, undefined],
    ]);
  });

  test("a body without # EOF, or with text after it, is reported once; its samples still count", () => {
    expect(read("a 1\n", "openmetrics").invalid).toEqual([[1, "OpenMetrics body does not end with # EOF"]]);
    const after = read("a 1\n# EOF\nb 2\n", "openmetrics");
    expect(after.samples).toHaveLength(1);
    expect(after.invalid).toEqual([[3, "text after # EOF"]]);
    expect(read("# TYPE a foo\na 1\n# EOF\n", "openmetrics").invalid[0]![1]).toMatch(/unknown metric type/);
  });

  test("the format comes from the Content-Type", () => {
    expect(expositionFormat("application/openmetrics-text; version=1.0.0; charset=utf-8")).toBe("openmetrics");
    expect(expositionFormat("text/plain; version=0.0.4; charset=utf-8")).toBe("text");
    expect(expositionFormat(undefined)).toBe("text");
  });
});

describe("numbers", () => {
  test("sample values as Go's ParseFloat reads them", () => {
    expect(parseSampleValue("1e3")).toBe(1000);
    expect(parseSampleValue("-0.5")).toBe(-0.5);
    expect(parseSampleValue(".5")).toBe(0.5);
    expect(parseSampleValue("NaN")).toBeNaN();
    expect(parseSampleValue("+Inf")).toBe(Number.POSITIVE_INFINITY);
    expect(parseSampleValue("-Inf")).toBe(Number.NEGATIVE_INFINITY);
    expect(parseSampleValue("0x10")).toBeUndefined();
    expect(parseSampleValue("")).toBeUndefined();
    expect(parseSampleValue("1,5")).toBeUndefined();
  });

  test("Go's 'g' format and OpenMetrics' whole-number form", () => {
    expect(formatGoFloatG(1e6)).toBe("1e+06");
    expect(formatGoFloatG(123456)).toBe("123456");
    expect(formatGoFloatG(0.0001)).toBe("0.0001");
    expect(formatGoFloatG(0.00001)).toBe("1e-05");
    expect(formatGoFloatG(1.5e-7)).toBe("1.5e-07");
    expect(formatGoFloatG(2.5e100)).toBe("2.5e+100");
    expect(formatOpenMetricsFloat(1)).toBe("1.0");
    expect(formatOpenMetricsFloat(10)).toBe("10.0");
    expect(formatOpenMetricsFloat(0.25)).toBe("0.25");
    expect(formatOpenMetricsFloat(1e6)).toBe("1e+06");
    expect(formatOpenMetricsFloat(Number.POSITIVE_INFINITY)).toBe("+Inf");
  });
});
