#!/usr/bin/env bun
import { runProgram } from "../src/config/run-program.ts";
import { collectorOptions } from "./config.ts";
import { startCollector } from "./server.ts";

const USAGE = "Usage: bun collector/main.ts [options]\n\nOutpost collector: stores what agents send over MQTT and serves the metrics, alerting,\ninventory and forecasting HTTP interfaces.";

await runProgram({ usage: USAGE, options: collectorOptions, envPrefix: "OUTPOST", section: "collector", start: startCollector });
