/**
 * The agent's inputs beside its host metrics (docs/inputs.md): Prometheus scrape jobs, StatsD
 * listeners, and the OTLP and Influx routes of the local API. Each hands its series to the one
 * intake (series-output.ts); SIGHUP applies a changed `[agent.inputs]`.
 */
import { type InputsConfig, inputsConfig } from "../../src/agent-config/inputs.ts";
import type { Hono } from "hono";
import type { OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { createLogThrottle } from "../../src/log/throttle.ts";
import type { Telemetry } from "../../src/telemetry/registry.ts";
import type { InputsInventory } from "../inventory/host-structure.ts";
import { type InputCounters, inputTelemetry } from "./input-telemetry.ts";
import { PrometheusInput } from "./prometheus/prometheus-input.ts";
import type { TargetStatus } from "./prometheus/scrape-loop.ts";
import { influxRoutes } from "./influx/influx-routes.ts";
import { otlpRoutes } from "./otlp/otlp-routes.ts";
import { type DefinitionLedger, type InputSink, SeriesOutput } from "./series-output.ts";
import { StatsdInput, type StatsdStatus } from "./statsd/statsd-input.ts";

export interface Inputs {
  /** The local API's routes of the inputs that listen there (OTLP, Influx). */
  routes(tenant: string): Hono[];
  /** The configuration in effect. */
  readonly config: InputsConfig;
  /** Scrape targets with their health. */
  targets(): TargetStatus[];
  /** Where StatsD listens, and the series it holds. */
  statsd(): StatsdStatus;
  /** The inputs and scrape targets for the inventory. */
  inventory(): InputsInventory;
  reload(values: OptionValues): Promise<void>;
  stop(): Promise<void>;
}

export interface InputsOptions {
  values: OptionValues;
  feed: string;
  ledger: DefinitionLedger;
  sink: InputSink;
  telemetry: Telemetry;
  log: Logger;
  /** The staleness marker written when a series ends (src/prometheus/staleness.ts). */
  staleMarker?: number;
}

/** Starts the inputs; a StatsD address that cannot be listened on fails the start. */
export async function startInputs(o: InputsOptions): Promise<Inputs> {
  const log = o.log.child("inputs");
  const counters = inputTelemetry(o.telemetry);
  const byInput = new Map<string, InputCounters>();
  const countersOf = (input: string) => {
    let c = byInput.get(input);
    if (!c) byInput.set(input, (c = counters(input)));
    return c;
  };
  // Bad input is said once a minute per target or sender, with how many were held back.
  const throttle = createLogThrottle(60_000);
  const warn = (key: string, message: string, fields: Record<string, unknown>) => {
    const t = throttle(`${message}\u0000${key}`);
    if (t.pass) log.warn(message, { ...fields, suppressedWarnings: t.suppressed || undefined });
  };
  let config = inputsConfig(o.values);
  const prometheus = new PrometheusInput({ feed: o.feed, ledger: o.ledger, sink: o.sink, counters: countersOf("prometheus"), warn, log: log.child("prometheus"), staleMarker: o.staleMarker }, log.child("prometheus"));
  void prometheus.apply(config.prometheus);
  const output = new SeriesOutput(o.feed, o.ledger, o.sink);
  const statsd = new StatsdInput({ output, counters: countersOf("statsd"), warn, log: log.child("statsd"), staleMarker: o.staleMarker });
  try {
    await statsd.apply(config.statsd);
  } catch (e) {
    await prometheus.stop();
    throw e;
  }
  return {
    get config() {
      return config;
    },
    targets: () => prometheus.targets(),
    statsd: () => statsd.status(),
    inventory() {
      const sd = statsd.status();
      return {
        targets: prometheus.targets().map((t) => ({ job: t.job, url: t.url, instance: t.instance, health: t.health, lastError: t.lastError })),
        otlp: config.otlp.enabled,
        influx: config.influx.enabled,
        statsd: sd.udp || sd.tcp ? { udp: sd.udp, tcp: sd.tcp } : undefined,
      };
    },
    routes: (tenant) => [
      otlpRoutes({ tenant, enabled: () => config.otlp.enabled, output, counters: countersOf("otlp"), warn, log: log.child("otlp"), staleMarker: o.staleMarker }),
      influxRoutes({ tenant, enabled: () => config.influx.enabled, output, counters: countersOf("influx"), warn, log: log.child("influx") }),
    ],
    async reload(values) {
      const next = inputsConfig(values);
      config = next;
      await prometheus.apply(next.prometheus);
      await statsd.apply(next.statsd);
    },
    async stop() {
      await prometheus.stop();
      await statsd.stop();
    },
  };
}
