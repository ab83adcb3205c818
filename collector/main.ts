#!/usr/bin/env bun
// First: it may start the process again with the allocator's setting (allocator-env.ts).
import "./allocator-setup.ts";
import { invocation } from "../src/config/invocation.ts";
import { runProgram } from "../src/config/run-program.ts";
import { collectorCommands } from "./commands.ts";
import { collectorProgram, validateCollectorOptions } from "./config.ts";
import { startCollector } from "./server.ts";

const USAGE = `Usage: ${invocation("collector", "collector")} [COMMAND] [options]

Outpost collector: stores what agents send over MQTT and serves the metrics, alerting,
inventory and forecasting HTTP interfaces. Without --auth-file it listens on loopback only
(docs/security.md).

Signals: SIGHUP re-reads the configuration and applies what can change while running (log
level, the auth file, certificates, and pushes every agent's local triggers again); SIGTERM
or SIGINT stops cleanly within --shutdown-timeout. Exit code 2: a configuration or start-up
error, printed in one line.`;

await runProgram({ ...collectorProgram, usage: USAGE, validate: validateCollectorOptions, start: startCollector, subcommands: collectorCommands });
