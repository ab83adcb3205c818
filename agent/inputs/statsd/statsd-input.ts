/**
 * The StatsD input: a UDP socket and/or a TCP listener (newline-separated lines), off until an
 * address is configured. Lines are aggregated (src/statsd/aggregator.ts) and buffered once per
 * flush interval, stamped with the interval's grid time. Oversized datagrams or lines and lines
 * that do not parse are counted and said once a minute per sender; they never stop the rest.
 */
import { createSocket, type Socket } from "node:dgram";
import type { StatsdConfig } from "../../../src/agent-config/inputs.ts";
import { hostPort } from "../../../src/net/listen.ts";
import { StatsdAggregator } from "../../../src/statsd/aggregator.ts";
import { parseStatsdPacket } from "../../../src/statsd/statsd-line.ts";
import type { InputDeps } from "../input-deps.ts";

export interface StatsdDeps extends InputDeps {
  staleMarker?: number;
}

export interface StatsdStatus {
  udp?: string;
  tcp?: string;
  series: number;
}

function splitAddress(a: string): { hostname: string; port: number } {
  const i = a.lastIndexOf(":");
  return { hostname: a.slice(0, i).replace(/^\[|\]$/g, ""), port: Number(a.slice(i + 1)) };
}

/** One running configuration: its sockets, aggregator and flush timer. */
class StatsdRun {
  readonly aggregator: StatsdAggregator;
  udp?: Socket;
  tcp?: Bun.TCPSocketListener<{ rest: string }>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    readonly config: StatsdConfig,
    private readonly d: StatsdDeps,
  ) {
    this.now = d.now ?? Date.now;
    this.aggregator = new StatsdAggregator({ percentiles: config.percentiles, expireAfterMs: config.expireAfterMs, maxSeries: config.maxSeries, staleMarker: d.staleMarker });
  }

  private take(text: string, sender: string): void {
    const now = this.now();
    let n = 0;
    parseStatsdPacket(
      text,
      (m) => {
        this.aggregator.add(m, now);
        n += m.values.length;
      },
      (line, why) => {
        this.d.counters.errors.inc();
        this.d.warn(sender, "skipped StatsD lines that do not parse", { sender, line: line.slice(0, 120), err: why });
      },
    );
    this.d.counters.samples.inc(n);
  }

  async start(): Promise<void> {
    const c = this.config;
    if (c.udp) {
      const at = splitAddress(c.udp);
      // node:dgram for its receive buffer size: the kernel drops datagrams once it is full.
      const udp = createSocket({ type: at.hostname.includes(":") ? "udp6" : "udp4", recvBufferSize: c.readBufferSize });
      await new Promise<void>((resolve, reject) => {
        udp.once("error", reject);
        udp.bind(at.port, at.hostname, () => {
          udp.off("error", reject);
          resolve();
        });
      });
      udp.on("error", (e) => this.d.warn("udp", "StatsD socket error", { err: e.message }));
      udp.on("message", (buf, from) => {
        this.d.counters.bytes.inc(buf.byteLength);
        if (buf.byteLength > c.maxPacketSize) {
          this.d.counters.errors.inc();
          this.d.warn(from.address, "dropped a StatsD datagram over max_packet_size", { sender: `${from.address}:${from.port}`, bytes: buf.byteLength, max: c.maxPacketSize });
          return;
        }
        this.take(buf.toString("utf8"), from.address);
      });
      this.udp = udp;
    }
    if (c.tcp) {
      this.tcp = Bun.listen<{ rest: string }>({
        ...splitAddress(c.tcp),
        socket: {
          open: (s) => {
            s.data = { rest: "" };
          },
          data: (s, buf) => {
            this.d.counters.bytes.inc(buf.byteLength);
            const text = s.data.rest + buf.toString("utf8");
            const end = text.lastIndexOf("\n");
            s.data.rest = end < 0 ? text : text.slice(end + 1);
            if (s.data.rest.length > c.maxPacketSize) {
              this.d.counters.errors.inc();
              this.d.warn(s.remoteAddress, "closed a StatsD connection whose line is over max_packet_size", { sender: s.remoteAddress, max: c.maxPacketSize });
              s.end();
              return;
            }
            if (end >= 0) this.take(text.slice(0, end), s.remoteAddress);
          },
          close: (s) => {
            if (s.data?.rest) this.take(s.data.rest, s.remoteAddress);
          },
        },
      });
    }
    this.schedule();
  }

  /** Flushes at every multiple of the interval, stamped with it. */
  private schedule(): void {
    if (this.stopped) return;
    const iv = this.config.flushIntervalMs;
    const at = (Math.floor(this.now() / iv) + 1) * iv;
    this.timer = setTimeout(() => {
      void this.flush(at).finally(() => this.schedule());
    }, at - this.now());
  }

  async flush(stamp: number): Promise<void> {
    const samples = this.aggregator.flush(stamp);
    if (this.aggregator.refused > 0) {
      this.d.counters.dropped.inc(this.aggregator.refused);
      this.d.warn("max_series", "StatsD series beyond max_series dropped", { dropped: this.aggregator.refused, max: this.config.maxSeries });
      this.aggregator.refused = 0;
    }
    if (samples.length === 0) return;
    try {
      await this.d.output.write(samples.map((s) => ({ ...s, timestamp: stamp })));
    } catch (e) {
      this.d.counters.dropped.inc(samples.length);
      this.d.warn("buffer", "could not buffer StatsD samples", { samples: samples.length, err: (e as Error).message });
    }
  }

  /** Closes the sockets and flushes what was aggregated since the last flush. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.udp?.close();
    this.tcp?.stop(true);
    await this.flush(this.now());
  }
}

export class StatsdInput {
  private run?: StatsdRun;
  private chain = Promise.resolve();

  constructor(private readonly d: StatsdDeps) {}

  /** Applies a (new) configuration: a changed one restarts the listeners (its aggregates flushed first). */
  apply(c: StatsdConfig): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.run && JSON.stringify(this.run.config) === JSON.stringify(c)) return;
      await this.run?.stop();
      this.run = undefined;
      if (!c.udp && !c.tcp) return;
      const run = new StatsdRun(c, this.d);
      try {
        await run.start();
      } catch (e) {
        await run.stop();
        throw new Error(`StatsD cannot listen on ${c.udp || c.tcp}: ${(e as Error).message}`);
      }
      this.run = run;
      this.d.log.info("StatsD listening", { udp: this.status().udp, tcp: this.status().tcp, flushIntervalMs: c.flushIntervalMs });
    });
    this.chain = next.catch(() => {});
    return next;
  }

  status(): StatsdStatus {
    const r = this.run;
    return {
      udp: r?.udp ? hostPort(r.udp.address().address, r.udp.address().port) : undefined,
      tcp: r?.tcp ? hostPort(r.tcp.hostname, r.tcp.port) : undefined,
      series: r?.aggregator.size ?? 0,
    };
  }

  stop(): Promise<void> {
    return this.apply({ udp: "", tcp: "", flushIntervalMs: 1000, percentiles: [], maxPacketSize: 0, readBufferSize: 0, expireAfterMs: 0, maxSeries: 1 });
  }
}
