#!/usr/bin/env bun
import { formatHelp, OptionError, parseOptions } from "../src/config/options.ts";
import { collectorOptions } from "./config.ts";
import { startCollector } from "./server.ts";

const USAGE = "Usage: bun collector/main.ts [options]\n\nOutpost collector: stores what agents send over MQTT and serves the metrics, alerting,\ninventory and forecasting HTTP interfaces.";

async function main() {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(collectorOptions, process.argv.slice(2), process.env, "OUTPOST", "collector");
  } catch (e) {
    if (e instanceof OptionError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (parsed.help) {
    process.stdout.write(formatHelp(USAGE, collectorOptions, "OUTPOST"));
    return;
  }
  const collector = await startCollector(parsed.values);
  const stop = async (sig: string) => {
    collector.log.info(`received ${sig}, shutting down`);
    await collector.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

await main();
