#!/usr/bin/env bun
import { formatHelp, OptionError, parseOptions } from "../src/config/options.ts";
import { BufferIdentityError } from "./buffer/point-buffer.ts";
import { startAgent } from "./agent.ts";
import { AGENT_ENV_PREFIX, agentOptions } from "./config.ts";

const USAGE = `Usage: bun agent/main.ts --tenant T [--feed F] [options]

Outpost agent: accepts data points on a local write API (the same JSON as the collector's
POST /svc/metrics/.../raw), keeps every point in a SQLite buffer until the collector has
committed it, and forwards batches over MQTT. Survives restarts, crashes and outages; the
buffer is bounded by --buffer-max-bytes and --buffer-max-age (oldest dropped and counted).`;

async function main() {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(agentOptions, process.argv.slice(2), process.env, AGENT_ENV_PREFIX, "agent");
  } catch (e) {
    if (e instanceof OptionError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (parsed.help) {
    process.stdout.write(formatHelp(USAGE, agentOptions, AGENT_ENV_PREFIX));
    return;
  }
  let agent: Awaited<ReturnType<typeof startAgent>>;
  try {
    agent = await startAgent(parsed.values);
  } catch (e) {
    if (e instanceof OptionError || e instanceof BufferIdentityError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const stop = async (sig: string) => {
    agent.log.info(`received ${sig}, shutting down`);
    await agent.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

await main();
