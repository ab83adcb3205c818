import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentOptions, validateAgentOptions } from "../../agent/config.ts";
import { inputsConfig } from "../../src/agent-config/inputs.ts";
import { parseOptions } from "../../src/config/options.ts";
import { programOptions } from "../../src/config/run-program.ts";

const root = "agent/inputs";
const samples = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => join(root, d.name, "sample.toml"));

describe("every input's sample configuration", () => {
  it("exists for each input folder", () => {
    expect(samples.map((s) => s.split("/")[2]).sort()).toEqual(["host", "influx", "otlp", "prometheus", "statsd"]);
  });
  it.each(samples)("%s is accepted by the agent's schema", (path) => {
    const p = parseOptions({ specs: programOptions({ options: agentOptions, shutdownTimeout: "10s" }), envPrefix: "OUTPOST_AGENT", section: "agent", otherSections: ["collector"] }, ["--config", path], {});
    validateAgentOptions(p.values);
    expect(() => inputsConfig(p.values)).not.toThrow();
  });
});
