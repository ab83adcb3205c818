/**
 * The agent's inputs as configured (`[agent.inputs]` in its TOML file; docs/inputs.md): the
 * schema, the checks beyond it, and the typed view the agent runs from. In `src/` so that the
 * collector can check a configuration with the same code before sending it to an agent.
 *
 *   [[agent.inputs.prometheus]]   scrape jobs (static targets and target files)
 *   [agent.inputs.otlp]           OTLP/HTTP on the local API (on by default)
 *   [agent.inputs.influx]         Influx line protocol on the local API (on by default)
 *   [agent.inputs.statsd]         StatsD over UDP and TCP (off until an address is given)
 */
import { OptionError, type OptionSpec, type OptionValues, type TableValue } from "../config/options.ts";
import { type FieldSpec, readTable } from "../config/table.ts";
import { parseRelabelRules, type RelabelRule } from "../prometheus/relabel.ts";

const DAY = 86_400_000;

const relabelFields: FieldSpec[] = [
  { name: "source_labels", kind: "list", default: [], help: "labels whose values, joined by separator, the regex is matched against (keep, drop)" },
  { name: "separator", kind: "string", default: ";", help: "joins the source labels' values" },
  { name: "regex", kind: "string", default: "(.*)", help: "RE2 regular expression, anchored at both ends (linear time: docs/regular-expressions.md)" },
  { name: "action", kind: "string", default: "keep", choices: ["keep", "drop", "labelkeep", "labeldrop"], help: "keep or drop the series when the regex matches; labelkeep/labeldrop keep or drop the labels whose names match" },
];

export const scrapeJobFields: FieldSpec[] = [
  { name: "job", kind: "string", required: true, help: "the job label of every series of this job" },
  { name: "targets", kind: "list", default: [], help: "host:port of each exporter" },
  { name: "labels", kind: "map", default: {}, help: "labels added to every series of the static targets" },
  { name: "files", kind: "list", default: [], help: "target files in Prometheus' file_sd shape (JSON or YAML: [{targets: [...], labels: {...}}]), re-read when they change" },
  { name: "refresh_interval", kind: "duration", min: 1000, max: DAY, default: "30s", help: "how often target files are checked for changes" },
  { name: "interval", kind: "duration", min: 1000, max: DAY, default: "1m", help: "scrape interval (Prometheus' scrape_interval)" },
  { name: "timeout", kind: "duration", min: 100, max: DAY, help: "scrape timeout, at most the interval (default: 10s, or the interval when shorter, as Prometheus)" },
  { name: "metrics_path", kind: "string", default: "/metrics", help: "HTTP path scraped" },
  { name: "params", kind: "map", default: {}, help: "URL query parameters sent with each scrape" },
  { name: "scheme", kind: "string", default: "http", choices: ["http", "https"], help: "http or https" },
  { name: "honor_labels", kind: "boolean", default: false, help: "keep the exporter's own job, instance (and feed) labels instead of renaming them exported_*" },
  { name: "honor_timestamps", kind: "boolean", default: true, help: "use the timestamps an exporter writes; else the scrape time" },
  { name: "body_size_limit", kind: "size", min: 0, max: 4 * 1024 ** 3, default: "32MB", help: "largest uncompressed body read; a larger one fails the scrape (0: no limit)" },
  { name: "sample_limit", kind: "int", min: 0, max: 100_000_000, default: 0, help: "more samples than this in one scrape fail it (0: no limit)" },
  {
    name: "basic_auth",
    kind: "table",
    help: "HTTP Basic credentials",
    fields: [
      { name: "username", kind: "string", help: "user name" },
      { name: "password_file", kind: "string", help: "file holding the password (never the password itself in this file)" },
    ],
  },
  { name: "bearer_token_file", kind: "string", help: "file holding a bearer token sent as Authorization: Bearer" },
  { name: "ca_file", kind: "string", help: "PEM CA certificate(s) that sign the targets' certificates (https)" },
  { name: "server_name", kind: "string", help: "name checked in the targets' certificates, when not the target's host" },
  { name: "metric_relabel_configs", kind: "tables", help: "rules applied to every scraped series, in order", fields: relabelFields },
];

const otlpFields: FieldSpec[] = [{ name: "enabled", kind: "boolean", default: true, help: "accept OTLP/HTTP metrics at POST /v1/metrics on the local API" }];
const influxFields: FieldSpec[] = [{ name: "enabled", kind: "boolean", default: true, help: "accept Influx line protocol at /write and /api/v2/write on the local API" }];

export const statsdFields: FieldSpec[] = [
  { name: "udp", kind: "string", default: "", help: "host:port to receive StatsD over UDP (empty: not over UDP), e.g. 127.0.0.1:8125" },
  { name: "tcp", kind: "string", default: "", help: "host:port to receive StatsD over TCP, newline-separated (empty: not over TCP)" },
  { name: "flush_interval", kind: "duration", min: 100, max: DAY, default: "10s", help: "metrics are aggregated and buffered once per interval" },
  { name: "percentiles", kind: "numbers", min: 0, max: 100, default: [50, 90, 99], help: "percentiles of timers and histograms computed per flush" },
  { name: "max_packet_size", kind: "size", min: 512, max: 65_536, default: "64KB", help: "largest UDP datagram or TCP line read; longer ones are dropped and counted" },
  {
    name: "read_buffer_size",
    kind: "size",
    min: 64 * 1024,
    max: 1024 ** 3,
    default: "8MB",
    help: "the UDP socket's receive buffer (SO_RCVBUF), which the kernel caps at net.core.rmem_max: datagrams arriving while it is full are dropped by the kernel",
  },
  { name: "expire_after", kind: "duration", min: 0, max: 365 * DAY, default: "5m", help: "a series not updated for this long is no longer sent (0: never)" },
  { name: "max_series", kind: "int", min: 1, max: 10_000_000, default: 100_000, help: "series held at most; new ones beyond are dropped and counted" },
];

export const inputsFields: FieldSpec[] = [
  { name: "prometheus", kind: "tables", help: "Prometheus scrape jobs", fields: scrapeJobFields },
  { name: "otlp", kind: "table", help: "OTLP/HTTP metrics", fields: otlpFields },
  { name: "influx", kind: "table", help: "Influx line protocol", fields: influxFields },
  { name: "statsd", kind: "table", help: "StatsD", fields: statsdFields },
];

export interface ScrapeJobConfig {
  job: string;
  targets: string[];
  labels: Record<string, string>;
  files: string[];
  refreshIntervalMs: number;
  intervalMs: number;
  timeoutMs: number;
  metricsPath: string;
  params: Record<string, string>;
  scheme: "http" | "https";
  honorLabels: boolean;
  honorTimestamps: boolean;
  bodySizeLimit: number;
  sampleLimit: number;
  basicAuth?: { username: string; passwordFile?: string };
  bearerTokenFile?: string;
  caFile?: string;
  serverName?: string;
  relabel: RelabelRule[];
}

export interface StatsdConfig {
  udp: string;
  tcp: string;
  flushIntervalMs: number;
  percentiles: number[];
  maxPacketSize: number;
  readBufferSize: number;
  expireAfterMs: number;
  maxSeries: number;
}

export interface InputsConfig {
  prometheus: ScrapeJobConfig[];
  otlp: { enabled: boolean };
  influx: { enabled: boolean };
  statsd: StatsdConfig;
}

/** host:port, [v6]:port; a port of 0 only where `allowZero` (a listener). */
export function hostPortProblem(s: string, allowZero: boolean): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/.exec(s);
  if (!m) return `"${s}" is not host:port`;
  const port = Number(m[2]);
  if (port > 65535 || (port === 0 && !allowZero)) return `port ${port} is out of range`;
  return undefined;
}

type Raw = Record<string, unknown>;

function job(t: Raw, where: string): ScrapeJobConfig {
  const s = (k: string) => (t[k] === undefined ? undefined : String(t[k]));
  const auth = t.basic_auth as Raw;
  const c: ScrapeJobConfig = {
    job: String(t.job),
    targets: t.targets as string[],
    labels: t.labels as Record<string, string>,
    files: t.files as string[],
    refreshIntervalMs: t.refresh_interval as number,
    intervalMs: t.interval as number,
    timeoutMs: (t.timeout as number | undefined) ?? Math.min(10_000, t.interval as number),
    metricsPath: String(t.metrics_path),
    params: t.params as Record<string, string>,
    scheme: t.scheme as "http" | "https",
    honorLabels: t.honor_labels as boolean,
    honorTimestamps: t.honor_timestamps as boolean,
    bodySizeLimit: t.body_size_limit as number,
    sampleLimit: t.sample_limit as number,
    basicAuth: auth.username === undefined ? undefined : { username: String(auth.username), passwordFile: auth.password_file === undefined ? undefined : String(auth.password_file) },
    bearerTokenFile: s("bearer_token_file"),
    caFile: s("ca_file"),
    serverName: s("server_name"),
    relabel: [],
  };
  if (c.job.trim() === "") throw new OptionError(`${where}.job must not be empty`);
  if (c.timeoutMs > c.intervalMs) throw new OptionError(`${where}.timeout must not be longer than interval`);
  if (!c.metricsPath.startsWith("/")) throw new OptionError(`${where}.metrics_path must start with /`);
  for (const target of c.targets) {
    const p = hostPortProblem(target, false);
    if (p) throw new OptionError(`${where}.targets: ${p}`);
  }
  for (const k of Object.keys(c.labels)) if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(k) || k.startsWith("__")) throw new OptionError(`${where}.labels: "${k}" is not a label name`);
  if (auth.password_file !== undefined && auth.username === undefined) throw new OptionError(`${where}.basic_auth needs a username`);
  if (c.basicAuth && c.bearerTokenFile) throw new OptionError(`${where}: basic_auth and bearer_token_file are exclusive`);
  if (c.targets.length === 0 && c.files.length === 0) throw new OptionError(`${where} has no targets and no files`);
  try {
    c.relabel = parseRelabelRules((t.metric_relabel_configs as Raw[]).map((r) => ({ sourceLabels: r.source_labels as string[], separator: String(r.separator), regex: String(r.regex), action: r.action as RelabelRule["action"] })));
  } catch (e) {
    throw new OptionError(`${where}.metric_relabel_configs: ${(e as Error).message}`);
  }
  return c;
}

/** Checks beyond the schema, and the typed view. Throws OptionError with one line. */
export function inputsFromTable(t: TableValue, where = "inputs"): InputsConfig {
  const r = t as Raw;
  const jobs = (r.prometheus as Raw[]).map((j, i) => job(j, `${where}.prometheus[${i}]`));
  const seen = new Set<string>();
  for (const j of jobs) {
    if (seen.has(j.job)) throw new OptionError(`${where}.prometheus: job "${j.job}" is configured twice`);
    seen.add(j.job);
  }
  const sd = r.statsd as Raw;
  const statsd: StatsdConfig = {
    udp: String(sd.udp).trim(),
    tcp: String(sd.tcp).trim(),
    flushIntervalMs: sd.flush_interval as number,
    percentiles: sd.percentiles as number[],
    maxPacketSize: sd.max_packet_size as number,
    readBufferSize: sd.read_buffer_size as number,
    expireAfterMs: sd.expire_after as number,
    maxSeries: sd.max_series as number,
  };
  for (const k of ["udp", "tcp"] as const) {
    const p = statsd[k] === "" ? undefined : hostPortProblem(statsd[k], true);
    if (p) throw new OptionError(`${where}.statsd.${k}: ${p}`);
  }
  return { prometheus: jobs, otlp: { enabled: (r.otlp as Raw).enabled as boolean }, influx: { enabled: (r.influx as Raw).enabled as boolean }, statsd };
}

/** Tables readInputs produced (converted: durations in ms, sizes in bytes). */
const checked = new WeakSet<object>();

/** Reads and checks a raw `inputs` table (TOML or JSON). */
export function readInputs(raw: unknown, where = "inputs"): TableValue {
  const t = readTable(inputsFields, raw, where);
  inputsFromTable(t, where);
  checked.add(t);
  return t;
}

/** The agent option holding the inputs; SIGHUP applies a changed one. */
export const inputsOption: OptionSpec = {
  name: "inputs",
  kind: "table",
  reloadable: true,
  help: "the inputs: [[agent.inputs.prometheus]] scrape jobs, [agent.inputs.otlp], [agent.inputs.influx], [agent.inputs.statsd] (docs/inputs.md; as JSON when given as a flag or variable; re-read on SIGHUP)",
  table: readInputs,
};

/**
 * The inputs of the options (the defaults when none are configured); a table not read through
 * the option schema yet (values given in code) is read now.
 */
export function inputsConfig(values: OptionValues): InputsConfig {
  const t = values.inputs;
  if (t !== undefined && typeof t === "object" && !Array.isArray(t) && checked.has(t)) return inputsFromTable(t);
  return inputsFromTable(readInputs(t ?? {}));
}

