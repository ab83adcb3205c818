import { releaseKeyOption, releasePublicKeyOf } from "../src/release/key-option.ts";
import { bodyPaceOptions } from "../src/http/body-limit.ts";
import { OptionError, type OptionSpec, type OptionValues, PORT_RANGE } from "../src/config/options.ts";
import type { ProgramIdentity } from "../src/config/run-program.ts";
import { readSecretOption, secretOptions } from "../src/config/secret-option.ts";
import { isPostgresUrl } from "../src/postgres/connect.ts";
import { parseBrokerUrl } from "../src/protocol/broker-url.ts";
import { topicPrefixProblem } from "../src/protocol/topics.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../src/metrics/rollup/tiers.ts";
import { nodeNameProblem } from "./cluster/node-name.ts";

export const COLLECTOR_ENV_PREFIX = "OUTPOST";

const DAY = 86_400_000;

export const collectorOptions: OptionSpec[] = [
  { name: "http-port", kind: "int", ...PORT_RANGE, default: 8080, help: "HTTP port of the REST interfaces (0 picks a free port)" },
  {
    name: "http-host",
    kind: "string",
    default: "127.0.0.1",
    help: "address the HTTP server binds to; another than loopback needs --auth-file (or --insecure)",
  },
  { name: "data-dir", kind: "string", default: "./data", help: "folder for the SQLite databases" },
  ...secretOptions(
    "database-url",
    "PostgreSQL URL (postgres://user:password@host:5432/db): metrics, alerts, inventory and forecasting are stored there instead of the data folder (docs/scale-out.md)",
  ),
  {
    name: "mqtt-port",
    kind: "int",
    ...PORT_RANGE,
    default: 1883,
    help: "port of the embedded MQTT broker; 0 disables it (then use --broker)",
  },
  {
    name: "mqtt-host",
    kind: "string",
    default: "127.0.0.1",
    help: "address the embedded MQTT broker binds to (MQTT over TLS, and plain MQTT unless --tls-cert keeps that on loopback: --mqtt-plain-host); another than loopback needs --auth-file (or --insecure)",
  },
  {
    name: "mqtt-plain-host",
    kind: "string",
    help: "address of the plain (unencrypted) MQTT listener on --mqtt-port; default: --mqtt-host, but 127.0.0.1 when --tls-cert is given, so that agents' passwords cross the network only over TLS unless asked (e.g. 0.0.0.0)",
  },
  {
    name: "auth-file",
    kind: "string",
    help: "credentials file (hashed; managed with `collector auth`, docs/security.md): every HTTP request and every agent must then log in; re-read on SIGHUP",
  },
  {
    name: "auth-failures",
    kind: "int",
    min: 0,
    max: 1_000_000,
    default: 5,
    help: "failed logins per minute allowed from one client address (all of loopback counts as one, IPv6 by /64), counted before the password check; one user name gets twice that from everywhere, the whole collector 60 times; beyond, attempts are refused (429, CONNACK 3) until the oldest failure is a minute old; 0: no limit",
  },
  {
    name: "insecure",
    kind: "boolean",
    default: false,
    help: "allow listening on non-loopback addresses without --auth-file: anyone who reaches the collector reads and writes every tenant",
  },
  { name: "tls-cert", kind: "string", help: "PEM certificate (chain) for HTTPS and MQTT over TLS; re-read on SIGHUP" },
  { name: "tls-key", kind: "string", help: "PEM private key of --tls-cert" },
  { name: "mqtts-port", kind: "int", ...PORT_RANGE, default: 8883, help: "port of the embedded broker's MQTT over TLS listener, with --tls-cert; 0 disables it" },
  {
    name: "tls-client-ca",
    kind: "string",
    help: "PEM CA: MQTT clients on the TLS listener must present a certificate it signed (on top of their credentials)",
  },
  {
    name: "external-url",
    kind: "string",
    help: "the URL clients reach the collector at (e.g. https://outpost.example.com), used for Location headers",
  },
  {
    name: "trusted-proxies",
    kind: "list",
    default: [],
    help: "addresses or CIDR ranges of reverse proxies whose X-Forwarded-Proto/-Host are believed (from anyone else they are ignored)",
  },
  {
    name: "broker",
    kind: "string",
    help: "URL of an external MQTT broker (mqtt://host:port) to consume agents from instead of the embedded one",
  },
  { name: "broker-username", kind: "string", help: "username the collector uses on an external broker" },
  ...secretOptions("broker-password", "password the collector uses on an external broker"),
  { name: "broker-ca-file", kind: "string", help: "PEM CA certificate of an external broker reached with mqtts://" },
  {
    name: "max-request-body",
    kind: "size",
    min: 1024,
    max: 4 * 1024 ** 3,
    default: "32MiB",
    help: "largest HTTP request body accepted (413 beyond); bodies being received at once hold at most 4 times this in memory (503 beyond)",
  },
  ...bodyPaceOptions,
  {
    name: "memory-target",
    kind: "size",
    min: 0,
    max: 1024 ** 4,
    default: "200MiB",
    help: "resident memory above which the collector collects garbage eagerly while HTTP bodies and MQTT batches arrive, metric chunks are sealed or read (at most once per 8 MiB of them); 0 leaves it to the runtime",
  },
  {
    name: "ingest-worker-min-body",
    kind: "size",
    min: 0,
    max: 4 * 1024 ** 3,
    default: "32KiB",
    help: "gauge and counter JSON write bodies at least this large are parsed in a second thread (docs/storage.md, write path); 0: every body on the main thread",
  },
  {
    name: "memory-limit",
    kind: "size",
    min: 0,
    max: 1024 ** 4,
    default: "0",
    help: "resident memory above which HTTP request bodies are refused with 503 and Retry-After (after a garbage collection was tried); 0: no limit",
  },
  {
    name: "mqtt-max-packet",
    kind: "size",
    min: 1024,
    max: 256 * 1024 ** 2,
    default: "16MiB",
    help: "largest MQTT packet the embedded broker accepts; a client sending a larger one is disconnected (set the same max_packet_size on an external broker)",
  },
  {
    name: "mqtt-preauth-max-bytes",
    kind: "size",
    min: 512,
    max: 1024 ** 2,
    default: "16KiB",
    help: "bytes an MQTT client may send the embedded broker before it has logged in (its CONNECT packet); more, or another packet, closes the connection",
  },
  {
    name: "mqtt-preauth-timeout",
    kind: "duration",
    min: 100,
    max: 300_000,
    default: "5s",
    help: "time an MQTT client has, from connecting (TLS handshake included), to log in to the embedded broker; a slower one is disconnected",
  },
  {
    name: "mqtt-preauth-max-connections",
    kind: "int",
    min: 1,
    max: 1_000_000,
    default: 128,
    help: "MQTT connections waiting to log in, at most (a quarter of them from one address or IPv6 /64, all of loopback counting as one); more are closed at once",
  },
  { name: "topic-prefix", kind: "string", default: "svc", help: "first topic level of agent↔collector messages" },
  {
    name: "self-metrics-tenant",
    kind: "string",
    default: "_outpost",
    help: "tenant under which the collector stores its own metrics (ids collector:<name>); they are also served at /metrics",
  },
  {
    name: "node-name",
    kind: "string",
    help: "this collector's name among collectors sharing a --database-url (default: the host name): its self-metrics are stored as collector:<node-name>:<name>, tagged collector=<node-name>",
  },
  { name: "self-metrics-interval", kind: "duration", min: 0, max: 86_400_000, default: "10s", help: "period at which the collector stores its own metrics; 0 stores none" },
  { name: "synchronous", kind: "string", default: "FULL", choices: ["FULL", "NORMAL"], help: "SQLite synchronous mode: FULL (power-loss safe) or NORMAL" },
  {
    name: "seal-on-stop",
    kind: "boolean",
    default: false,
    help: "at a clean stop, seal the points not yet in chunks and empty the ingest log (before a downgrade: older versions do not read the log); by default they stay in the log and the next start rebuilds them",
  },
  {
    name: "chunk-cache",
    kind: "size",
    min: 0,
    max: 64 * 1024 ** 3,
    default: "64MiB",
    help: "memory for stored metric chunks kept between reads, compressed as on disk (about 10 M points of host metrics in 64 MiB); 0 disables it",
  },
  {
    name: "value-precision",
    kind: "int",
    min: 1,
    max: 17,
    help: "round gauge and counter values to this many significant decimal digits as they are written (smaller on disk, docs/storage.md); unset: stored exactly as sent",
  },
  {
    name: "default-retention",
    kind: "duration",
    bareUnit: "d",
    min: DAY,
    max: 36_500 * DAY,
    default: "7d",
    help: "how long a data point is kept when neither metric nor tenant sets a retention: whole days, e.g. 7d or 365d (a number alone is days, as in older configuration files)",
  },
  {
    name: "rollup-tiers",
    kind: "list",
    default: DEFAULT_ROLLUP_TIERS,
    help:
      "rollup tiers as STEP:RETENTION, finest first: per-bucket aggregates of every gauge, counter and availability (min, max, sum, count, last, counter increase, a quantile sketch; time up/down), kept for RETENTION after they were last written, beside the raw points; long-range stats and PromQL read them (docs/storage.md, \"Rollup tiers\"); \"none\" keeps none (and deletes those stored)",
  },
  {
    name: "rollup-worker",
    kind: "boolean",
    default: true,
    help: "compute the rollup tiers in a second thread (SQLite storage), the main thread only writing their blocks (docs/storage.md, \"The roller on the second core\"); --no-rollup-worker computes them on the main thread, in slices between requests",
  },
  { name: "smtp-host", kind: "string", default: "localhost", help: "SMTP server of the email action plugin, unless an action names one (mail.smtp.host)" },
  { name: "smtp-port", kind: "int", min: 1, max: 65535, default: 25, help: "port of that SMTP server (mail.smtp.port)" },
  {
    name: "watch-heartbeat",
    kind: "duration",
    min: 100,
    max: 3_600_000,
    default: "10s",
    help: "how often quiet alert and event watch streams send a heartbeat (a space) so idle timeouts keep them open",
  },
  { name: "console", kind: "boolean", default: true, help: "serve the web console at / and /console/ (docs/console.md); false leaves only the HTTP interfaces" },
  {
    name: "cors-origins",
    kind: "list",
    help:
      "browser origins (other than the collector's own pages) allowed to call the HTTP interfaces (CORS), as scheme://host[:port] entries (a host admits its subdomains); * allows any, without credentials; a request from another origin is answered 400. Default: none",
  },
  {
    name: "allowed-hosts",
    kind: "list",
    default: [],
    help: "host names clients reach the HTTP interfaces by, beyond IP addresses, localhost, this machine's name and --external-url's host (name, or *.example.com for its subdomains; * allows any); a request for another Host is answered 403 (DNS rebinding)",
  },
  {
    name: "cors-allow-headers",
    kind: "list",
    default: [],
    help: "request headers browsers may send beyond origin, accept, content-type, hawkular-tenant, svc-tenant, authorization and hawkular-admin-token",
  },
  releaseKeyOption(
    "public half of the release key (`collector auth release-key` prints it: ed25519:…), or a PEM file of it: agent releases uploaded to the fleet interface must be signed with it (docs/fleet.md, \"Upgrades\"); none: no release is taken",
  ),
  {
    name: "agent-credentials",
    kind: "list",
    help: "",
    retired: "agents' credentials are in the --auth-file now, hashed (`collector auth add --user U --feed TENANT/FEED`; docs/security.md)",
  },
];

/** How the collector's configuration is found (the program and its subcommands share it). */
export const collectorProgram: ProgramIdentity = {
  name: "outpost-collector",
  options: collectorOptions,
  envPrefix: COLLECTOR_ENV_PREFIX,
  section: "collector",
  otherSections: ["agent"],
  // The agent's variables, and those of `collector auth` (OUTPOST_AUTH_PASSWORD...), are not the collector's.
  otherEnvPrefixes: ["OUTPOST_AGENT_", "OUTPOST_AUTH_"],
  shutdownTimeout: "30s",
};

/** Checks beyond the schema; run at start, by --check-config and before a SIGHUP reload. */
export function validateCollectorOptions(values: OptionValues): void {
  const broker = values.broker === undefined ? "" : String(values.broker).trim();
  if (broker !== "") {
    try {
      parseBrokerUrl(broker);
    } catch (e) {
      throw new OptionError(`--broker: ${(e as Error).message}`);
    }
  }
  const databaseUrl = readSecretOption(values, "database-url");
  // The URL itself is never repeated: it may hold a password.
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) throw new OptionError("--database-url must be a postgres:// or postgresql:// URL");
  const nodeName = values["node-name"];
  const nodeProblem = nodeName === undefined ? undefined : nodeNameProblem(String(nodeName));
  if (nodeProblem) throw new OptionError(`--node-name ${nodeProblem}`);
  const prefixProblem = topicPrefixProblem(String(values["topic-prefix"] ?? "svc"));
  if (prefixProblem) throw new OptionError(`--topic-prefix ${prefixProblem}`);
  // Retention is counted in days (Hawkular's dataRetention): a part of a day would be dropped unsaid.
  const retention = Number(values["default-retention"] ?? 7 * DAY);
  if (retention % DAY !== 0) throw new OptionError(`--default-retention must be whole days (e.g. ${Math.max(1, Math.round(retention / DAY))}d)`);
  rollupTiersOf(values);
  releasePublicKeyOf(values);
}

/** The configured rollup tiers (--rollup-tiers); a mistake is refused in one line. */
export function rollupTiersOf(values: OptionValues) {
  try {
    return parseRollupTiers((values["rollup-tiers"] as string[] | undefined) ?? DEFAULT_ROLLUP_TIERS);
  } catch (e) {
    throw new OptionError(`--rollup-tiers: ${(e as Error).message}`);
  }
}

/** --default-retention in days, as the stores count retention. */
export const defaultRetentionDays = (values: OptionValues): number => Number(values["default-retention"] ?? 7 * DAY) / DAY;
