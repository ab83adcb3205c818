#!/usr/bin/env bun
import { runProgram } from "../src/config/run-program.ts";
import { BufferIdentityError } from "./buffer/point-buffer.ts";
import { startAgent } from "./agent.ts";
import { AGENT_ENV_PREFIX, agentOptions } from "./config.ts";

const USAGE = `Usage: outpost-agent --tenant T [--feed F] [options]     (from source: bun agent/main.ts ...)

Outpost agent: collects the host's metrics from procfs and statfs (docs/metrics.md), accepts
data points on a local write API (the same JSON as the collector's POST /svc/metrics/.../raw),
keeps every point in a SQLite buffer until the collector has committed it, and forwards
batches over MQTT. Describes the host in the collector's inventory, synced when it changes.
Survives restarts, crashes and outages; the buffer is bounded by --buffer-max-bytes and
--buffer-max-age (oldest dropped and counted).`;

await runProgram({
  usage: USAGE,
  options: agentOptions,
  envPrefix: AGENT_ENV_PREFIX,
  section: "agent",
  start: startAgent,
  isUsageError: (e) => e instanceof BufferIdentityError,
});
