import type { OptionSpec } from "../src/config/options.ts";
import { hostMetricOptions } from "./sources/host/options.ts";

export const AGENT_ENV_PREFIX = "OUTPOST_AGENT";

export const agentOptions: OptionSpec[] = [
  { name: "broker", kind: "string", default: "mqtt://127.0.0.1:1883", help: "MQTT broker URL: the collector's embedded broker or an external one (mqtt:// or mqtts://)" },
  { name: "tenant", kind: "string", help: "tenant the agent's data belongs to (required)" },
  { name: "feed", kind: "string", help: "feed id naming this agent within its tenant (default: the host name)" },
  { name: "username", kind: "string", help: "username presented to the broker, when the collector requires agent credentials" },
  { name: "password", kind: "string", help: "password presented to the broker" },
  { name: "data-dir", kind: "string", default: "./agent-data", help: "folder of the SQLite buffer; one buffer belongs to one tenant and feed" },
  { name: "interval", kind: "duration", default: "10s", help: "collection tick: the agent's own metrics are buffered and the buffer limits enforced at this period" },
  { name: "listen", kind: "string", default: "127.0.0.1:8181", help: "host:port of the local write API and /metrics; empty disables it" },
  { name: "topic-prefix", kind: "string", default: "svc", help: "first topic level; must match the collector's --topic-prefix" },
  { name: "buffer-max-bytes", kind: "size", default: "256MB", help: "buffer size limit; beyond it the oldest points are dropped and counted" },
  { name: "buffer-max-age", kind: "duration", default: "24h", help: "points buffered longer than this are dropped and counted" },
  { name: "events-buffer-max-bytes", kind: "size", default: "32MB", help: "size limit of the buffer of alerts and events fired by local triggers; beyond it the oldest are dropped and counted" },
  { name: "batch-points", kind: "int", default: 5000, help: "points per batch sent to the collector, at most" },
  { name: "window", kind: "int", default: 8, help: "batches sent and not yet acknowledged by the collector, at most" },
  { name: "ack-timeout", kind: "duration", default: "10s", help: "a batch not acknowledged within this time is sent again (the wait doubles per attempt, up to 4×)" },
  { name: "replay-rate", kind: "int", default: 5000, help: "points per second at most when replaying a backlog after an outage (fresh data is not limited); 0 means unlimited" },
  { name: "reconnect-min", kind: "duration", default: "1s", help: "first wait before reconnecting to the broker; doubles per failure" },
  { name: "reconnect-max", kind: "duration", default: "30s", help: "longest wait between reconnection attempts" },
  { name: "flag-past", kind: "duration", default: "24h", help: "points older than this relative to the agent's clock are flagged (counted and logged, still sent)" },
  { name: "flag-future", kind: "duration", default: "5m", help: "points further ahead of the agent's clock than this are flagged (counted and logged, still sent)" },
  { name: "synchronous", kind: "string", default: "FULL", help: "SQLite synchronous mode of the buffer: FULL (an accepted write survives power loss) or NORMAL (survives crashes only)" },
  ...hostMetricOptions,
  { name: "inventory", kind: "boolean", default: true, help: "describe the host (resources and metrics collected) in the collector's inventory, synced whenever it changes" },
  { name: "log-level", kind: "string", default: "info", help: "debug, info, warn, error or silent" },
];
