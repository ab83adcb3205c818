import { actionsOption } from "../src/agent-config/actions.ts";
import { bufferLimitOptions } from "../src/agent-config/buffer.ts";
import { fleetOptions, parseTags, pinnedOptions } from "../src/agent-config/fleet.ts";
import { historyOption } from "../src/agent-config/history.ts";
import { inputsOption } from "../src/agent-config/inputs.ts";
import { bodyPaceOptions } from "../src/http/body-limit.ts";
import { OptionError, type OptionSpec, type OptionValues } from "../src/config/options.ts";
import { readSecretOption, secretOptions } from "../src/config/secret-option.ts";
import { isLoopbackHost } from "../src/net/loopback.ts";
import { parseBrokerUrl } from "../src/protocol/broker-url.ts";
import { topicPrefixProblem } from "../src/protocol/topics.ts";
import { hostMetricOptions } from "./inputs/host/options.ts";
import { upgradeOptions } from "./upgrade/options.ts";
import { releasePublicKeyOf } from "../src/release/key-option.ts";

export const AGENT_ENV_PREFIX = "OUTPOST_AGENT";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const agentOptions: OptionSpec[] = [
  {
    name: "broker",
    kind: "string",
    default: "mqtt://127.0.0.1:1883",
    help: "MQTT broker URL: the collector's embedded broker or an external one (mqtt://host:port or mqtts://host:port; without a port, 1883 or 8883). When not given, the broker of a collector this user runs on this machine (it says where it listens in the user's runtime folder), else the default",
  },
  { name: "tenant", kind: "string", help: "tenant the agent's data belongs to (required)" },
  { name: "feed", kind: "string", help: "feed id naming this agent within its tenant (default: the host name)" },
  { name: "username", kind: "string", reloadable: true, help: "username presented to the broker (the agent credential made with `collector auth add --feed TENANT/FEED`; re-read on SIGHUP: the agent reconnects)" },
  ...secretOptions("password", "password presented to the broker (re-read on SIGHUP)").map((o) => ({ ...o, reloadable: true })),
  { name: "ca-file", kind: "string", help: "PEM CA certificate(s) that sign the broker's certificate (mqtts://); default: the system's CAs" },
  { name: "cert-file", kind: "string", help: "PEM client certificate presented to the broker (mqtts://), when it requires one" },
  { name: "key-file", kind: "string", help: "PEM private key of --cert-file" },
  ...upgradeOptions,
  { name: "data-dir", kind: "string", default: "./agent-data", help: "folder of the SQLite buffer; one buffer belongs to one tenant and feed" },
  { name: "interval", kind: "duration", min: 100, max: DAY, default: "10s", help: "collection tick: the agent's own metrics are buffered and the buffer limits enforced at this period" },
  { name: "listen", kind: "string", default: "127.0.0.1:8181", help: "host:port of the local API (writes, reads of the local history, the on-site console, /metrics); empty disables it; another than loopback needs an api-token (or --insecure)" },
  ...secretOptions("api-token", "token the local API and /metrics require (Authorization: Bearer, or as the Basic password; the on-site console asks for it once); none: open to local clients"),
  { name: "insecure", kind: "boolean", default: false, help: "allow --listen on a non-loopback address without an api-token" },
  {
    name: "console",
    kind: "boolean",
    default: true,
    help: "serve the on-site console at / of the local API: the console's metrics page over this agent's local window, read-only, for a technician next to the device (a login with the api-token when one is set; off with the window)",
  },
  {
    name: "allowed-hosts",
    kind: "list",
    default: [],
    help: "host names clients reach the local write API by, beyond IP addresses, localhost and this machine's name (name, or *.example.com; * allows any); a request for another Host is answered 403 (DNS rebinding)",
  },
  {
    name: "max-request-body",
    kind: "size",
    min: 1024,
    max: 4 * 1024 ** 3,
    default: "32MiB",
    help: "largest request body the local write API accepts (413 beyond); bodies received at once hold at most 4 times this",
  },
  ...bodyPaceOptions,
  { name: "topic-prefix", kind: "string", default: "svc", help: "first topic level; must match the collector's --topic-prefix" },
  ...bufferLimitOptions,
  {
    name: "disk-reserve",
    kind: "size",
    min: 0,
    max: 1024 ** 3,
    default: "8MiB",
    help: "disk space held back in the data folder (at most an eighth of its filesystem) and released when the disk fills, so acknowledged points can still be deleted; 0 disables it",
  },
  { name: "batch-points", kind: "int", min: 1, max: 1_000_000, default: 5000, help: "points per batch sent to the collector, at most" },
  { name: "window", kind: "int", min: 1, max: 1000, default: 8, help: "batches sent and not yet acknowledged by the collector, at most" },
  { name: "ack-timeout", kind: "duration", min: 100, max: HOUR, default: "10s", help: "a batch not acknowledged within this time is sent again (the wait doubles per attempt, up to 4×)" },
  {
    name: "ack-warn-after",
    kind: "duration",
    min: 1000,
    max: DAY,
    default: "1m",
    help: "warn when connected to the broker but nothing sent was acknowledged for this long (wrong broker, collector down or another topic prefix)",
  },
  { name: "replay-rate", kind: "int", min: 0, max: 1_000_000_000, default: 5000, help: "points per second at most when replaying a backlog after an outage (fresh data is not limited); 0 means unlimited" },
  { name: "reconnect-min", kind: "duration", min: 10, max: HOUR, default: "1s", help: "first wait before reconnecting to the broker; doubles per failure" },
  { name: "reconnect-max", kind: "duration", min: 10, max: HOUR, default: "30s", help: "longest wait between reconnection attempts" },
  { name: "flag-past", kind: "duration", min: 0, max: 3650 * DAY, default: "24h", help: "points older than this relative to the agent's clock are flagged (counted and logged, still sent)" },
  { name: "flag-future", kind: "duration", min: 0, max: 3650 * DAY, default: "5m", help: "points further ahead of the agent's clock than this are flagged (counted and logged, still sent)" },
  {
    name: "synchronous",
    kind: "string",
    default: "FULL",
    choices: ["FULL", "NORMAL"],
    help: "SQLite synchronous mode of the buffer: FULL (an accepted write survives power loss) or NORMAL (survives crashes only)",
  },
  ...hostMetricOptions,
  { name: "inventory", kind: "boolean", default: true, help: "describe the host (resources and metrics collected) in the collector's inventory, synced whenever it changes" },
  inputsOption,
  actionsOption,
  historyOption,
  ...fleetOptions,
];

/** host:port of --listen (IPv6 in brackets), or an OptionError. */
export function splitListen(listen: string): { hostname: string; port: number } {
  const i = listen.lastIndexOf(":");
  const portText = listen.slice(i + 1);
  const port = Number(portText);
  if (i < 0 || portText === "" || !Number.isInteger(port)) throw new OptionError(`--listen: "${listen}" is not host:port`);
  if (port < 0 || port > 65535) throw new OptionError(`--listen: port ${port} must be between 0 and 65535`);
  return { hostname: listen.slice(0, i).replace(/^\[|\]$/g, "") || "127.0.0.1", port };
}

/** Checks beyond the schema; run at start, by --check-config and before a SIGHUP reload. */
export function validateAgentOptions(values: OptionValues): void {
  if (values.tenant === undefined || String(values.tenant).trim() === "") throw new OptionError("--tenant is required");
  if (values.feed !== undefined && String(values.feed).trim() === "") throw new OptionError("--feed must not be empty");
  try {
    parseBrokerUrl(String(values.broker ?? "mqtt://127.0.0.1:1883"));
  } catch (e) {
    throw new OptionError(`--broker: ${(e as Error).message}`);
  }
  const prefixProblem = topicPrefixProblem(String(values["topic-prefix"] ?? "svc"));
  if (prefixProblem) throw new OptionError(`--topic-prefix ${prefixProblem}`);
  const listen = String(values.listen ?? "").trim();
  const at = listen === "" ? undefined : splitListen(listen);
  if (at && !isLoopbackHost(at.hostname) && readSecretOption(values, "api-token") === undefined && values.insecure !== true) {
    throw new OptionError(
      `refusing to serve the local write API on ${at.hostname} without an api-token: anyone who can reach it could write into tenant ${String(values.tenant).trim()}. Set OUTPOST_AGENT_API_TOKEN or --api-token-file, listen on 127.0.0.1, or pass --insecure`,
    );
  }
  parseTags((values.tags as string[] | undefined) ?? []);
  pinnedOptions(values);
  releasePublicKeyOf(values);
  if (Number(values["reconnect-min"] ?? 1000) > Number(values["reconnect-max"] ?? 30_000)) {
    throw new OptionError("--reconnect-min must not be longer than --reconnect-max");
  }
}
