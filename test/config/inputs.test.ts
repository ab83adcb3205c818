import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentOptions } from "../../agent/config.ts";
import { inputsConfig, readInputs } from "../../src/agent-config/inputs.ts";
import { OptionError, type OptionSource, parseOptions } from "../../src/config/options.ts";
import { programOptions } from "../../src/config/run-program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-inputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const agent: OptionSource = { specs: programOptions({ options: agentOptions, shutdownTimeout: "10s" }), envPrefix: "OUTPOST_AGENT", section: "agent", otherSections: ["collector"] };
let files = 0;
const toml = (text: string) => {
  const p = join(dir, `c${++files}.toml`);
  writeFileSync(p, text);
  return p;
};
const parse = (text: string, env: Record<string, string> = {}) => parseOptions(agent, ["--config", toml(text)], env).values;
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    return (e as Error).message;
  }
  throw new Error("expected an OptionError");
}

describe("[agent.inputs] in the TOML file", () => {
  it("scrape jobs, OTLP, Influx and StatsD, with their defaults", () => {
    const v = parse(`
[agent]
tenant = "t"

[[agent.inputs.prometheus]]
job = "node"
targets = ["127.0.0.1:9100", "[::1]:9100"]
labels = { env = "prod" }
interval = "10s"
timeout = "5s"
honor_labels = true

[[agent.inputs.prometheus.metric_relabel_configs]]
source_labels = ["__name__"]
regex = "go_.*"
action = "drop"

[[agent.inputs.prometheus]]
job = "apps"
files = ["/etc/outpost/targets/*.json"]
scheme = "https"
ca_file = "/etc/ssl/ca.pem"
basic_auth = { username = "scraper", password_file = "/etc/outpost/scrape.pw" }

[agent.inputs.statsd]
udp = "127.0.0.1:8125"
percentiles = [90, 99.9]

[agent.inputs.otlp]
enabled = false
`);
    const c = inputsConfig(v);
    expect(c.prometheus).toHaveLength(2);
    expect(c.prometheus[0]).toMatchObject({ job: "node", targets: ["127.0.0.1:9100", "[::1]:9100"], labels: { env: "prod" }, intervalMs: 10_000, timeoutMs: 5000, honorLabels: true, metricsPath: "/metrics", scheme: "http", bodySizeLimit: 32 * 1024 ** 2 });
    expect(c.prometheus[0]!.relabel.map((r) => [r.action, r.regex, r.sourceLabels])).toEqual([["drop", "go_.*", ["__name__"]]]);
    expect(c.prometheus[1]).toMatchObject({ job: "apps", files: ["/etc/outpost/targets/*.json"], intervalMs: 60_000, scheme: "https", caFile: "/etc/ssl/ca.pem", basicAuth: { username: "scraper", passwordFile: "/etc/outpost/scrape.pw" } });
    expect(c.statsd).toMatchObject({ udp: "127.0.0.1:8125", tcp: "", flushIntervalMs: 10_000, percentiles: [90, 99.9] });
    expect(c.otlp.enabled).toBe(false);
    expect(c.influx.enabled).toBe(true);
  });

  it("no inputs section: OTLP and Influx on, StatsD off, no scrape jobs", () => {
    const c = inputsConfig(parse('[agent]\ntenant = "t"\n'));
    expect(c).toMatchObject({ prometheus: [], otlp: { enabled: true }, influx: { enabled: true }, statsd: { udp: "", tcp: "" } });
  });

  it("mistakes are refused with one line naming the place", () => {
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:1"]\nscrape_interval = "10s"\n'))).toMatch(/\[agent\] inputs\.prometheus\[0\]\.scrape_interval: unknown key/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:1"]\ninterval = "5s"\ntimeout = "10s"\n'))).toMatch(/timeout must not be longer than interval/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\ntargets = ["h:1"]\n'))).toMatch(/job is required/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h"]\n'))).toMatch(/"h" is not host:port/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\n'))).toMatch(/has no targets and no files/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:1"]\n[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:2"]\n'))).toMatch(/job "a" is configured twice/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:1"]\n[[agent.inputs.prometheus.metric_relabel_configs]]\nsource_labels = ["__name__"]\nregex = "(a"\naction = "drop"\n'))).toMatch(/metric_relabel_configs: rule 1: invalid regular expression/);
    expect(refusal(() => parse('[[agent.inputs.prometheus]]\njob = "a"\ntargets = ["h:1"]\n[[agent.inputs.prometheus.metric_relabel_configs]]\nsource_labels = ["__name__"]\naction = "replace"\n'))).toMatch(/"replace" is not one of keep, drop, labelkeep, labeldrop/);
    expect(refusal(() => parse('[agent.inputs.statsd]\nudp = "nowhere"\n'))).toMatch(/inputs\.statsd\.udp: "nowhere" is not host:port/);
    expect(refusal(() => parse('[agent.inputs.statsd]\npercentiles = [101]\n'))).toMatch(/101 must be between 0 and 100/);
    expect(refusal(() => parse('[agent.inputs.kafka]\n'))).toMatch(/inputs\.kafka: unknown key/);
  });

  it("as JSON in the environment, checked the same way", () => {
    const v = parseOptions(agent, [], { OUTPOST_AGENT_INPUTS: JSON.stringify({ prometheus: [{ job: "j", targets: ["127.0.0.1:1"] }] }) }).values;
    expect(inputsConfig(v).prometheus[0]).toMatchObject({ job: "j", intervalMs: 60_000 });
    expect(refusal(() => parseOptions(agent, [], { OUTPOST_AGENT_INPUTS: "{nope" }))).toMatch(/OUTPOST_AGENT_INPUTS: expected a table, in JSON/);
    expect(() => readInputs({ prometheus: [{ job: "j", targets: ["127.0.0.1:1"], timeout: "2m" }] })).toThrow(/timeout must not be longer than interval/);
  });
});
