#!/usr/bin/env bun
// First: it may start the process again with the engine's settings (runtime-env.ts).
import "./runtime-setup.ts";
import { invocation } from "../src/config/invocation.ts";
import { runProgram } from "../src/config/run-program.ts";
import { startAgent } from "./agent.ts";
import { AGENT_ENV_PREFIX, agentOptions, validateAgentOptions } from "./config.ts";

const USAGE = `Usage: ${invocation("agent", "agent")} --tenant T [--feed F] [options]

Outpost agent: collects the host's metrics from procfs and statfs (docs/metrics.md), accepts
data points on a local write API (the same JSON as the collector's POST /svc/metrics/.../raw),
scrapes Prometheus exporters and takes OTLP, StatsD and Influx line protocol ([agent.inputs]
in the --config file, docs/inputs.md),
keeps every point in a SQLite buffer until the collector has committed it, and forwards
batches over MQTT. Describes the host in the collector's inventory, synced when it changes.
Survives restarts, crashes and outages; the buffer is bounded by --buffer-max-bytes and
--buffer-max-age (oldest dropped and counted). Keeps what the collector acknowledged for a
local window ([agent.history], 24 h) and answers reads of its own series on the local API as
the collector does (docs/storage.md). Evaluates the triggers the collector pushes, also
offline, and runs their local actions (commands, local webhooks, the system log) only as
[agent.actions] allows: nothing by default (docs/local-triggers.md). Makes an identity at its
first start (data-dir/identity.key) and claims its feed with it; runs the remote configuration
revisions the collector sends, over the options it does not --pin (docs/fleet.md).

Signals: SIGHUP re-reads the configuration and applies what can change while running (log
level, host metric filters and interval, buffer limits, broker credentials, inputs); SIGTERM or SIGINT stops cleanly within
--shutdown-timeout. Exit code 2: a configuration or start-up error, printed in one line.`;

await runProgram({
  name: "outpost-agent",
  usage: USAGE,
  options: agentOptions,
  envPrefix: AGENT_ENV_PREFIX,
  section: "agent",
  otherSections: ["collector"],
  shutdownTimeout: "10s",
  validate: validateAgentOptions,
  start: startAgent,
});
