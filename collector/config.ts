import type { OptionSpec } from "../src/config/options.ts";

export const collectorOptions: OptionSpec[] = [
  { name: "http-port", kind: "int", default: 8080, help: "HTTP port of the REST interfaces (0 picks a free port)" },
  { name: "http-host", kind: "string", default: "0.0.0.0", help: "address the HTTP server binds to" },
  { name: "data-dir", kind: "string", default: "./data", help: "folder for the SQLite databases" },
  {
    name: "mqtt-port",
    kind: "int",
    default: 1883,
    help: "port of the embedded MQTT broker; 0 disables it (then use --broker)",
  },
  { name: "mqtt-host", kind: "string", default: "0.0.0.0", help: "address the embedded MQTT broker binds to" },
  {
    name: "broker",
    kind: "string",
    help: "URL of an external MQTT broker (mqtt://host:port) to consume agents from instead of the embedded one",
  },
  { name: "broker-username", kind: "string", help: "username the collector uses on an external broker" },
  { name: "broker-password", kind: "string", help: "password the collector uses on an external broker" },
  { name: "topic-prefix", kind: "string", default: "svc", help: "first topic level of agent↔collector messages" },
  {
    name: "agent-credentials",
    kind: "list",
    default: [],
    help: "credentials agents must present to the embedded broker, as tenant:username:password entries; empty accepts any agent",
  },
  {
    name: "self-metrics-tenant",
    kind: "string",
    default: "_outpost",
    help: "tenant under which the collector stores its own metrics (ids collector:<name>); they are also served at /metrics",
  },
  { name: "self-metrics-interval", kind: "duration", default: "10s", help: "period at which the collector stores its own metrics; 0 stores none" },
  { name: "synchronous", kind: "string", default: "FULL", help: "SQLite synchronous mode: FULL (power-loss safe) or NORMAL" },
  { name: "default-retention", kind: "int", default: 7, help: "days a data point is kept when neither metric nor tenant sets a retention" },
  { name: "smtp-host", kind: "string", default: "localhost", help: "SMTP server of the email action plugin, unless an action names one (mail.smtp.host)" },
  { name: "smtp-port", kind: "int", default: 25, help: "port of that SMTP server (mail.smtp.port)" },
  {
    name: "watch-heartbeat",
    kind: "duration",
    default: "10s",
    help: "how often quiet alert and event watch streams send a heartbeat (a space) so idle timeouts keep them open",
  },
  { name: "log-level", kind: "string", default: "info", help: "debug, info, warn, error or silent" },
];
