import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Decoder, Encoder } from "cbor-x";
import { mergeRemote, readRemoteConfig } from "../../src/agent-config/remote.ts";
import type { LiveOptions, Overlay } from "../../src/config/live-options.ts";
import { OptionError, type OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { ProtocolError } from "../../src/protocol/envelope.ts";
import { type ConfigMessage, type ConfigStatus, decodeConfig, encodeConfigStatus } from "../../src/protocol/fleet-messages.ts";
import { writePrivateFile } from "./private-file.ts";

/** The revision in effect, kept in the data folder so a restart without network runs it too. */
export const REMOTE_CONFIG_FILE = "remote-config.json";

interface Running {
  revision: number;
  config: Record<string, unknown>;
  values: OptionValues;
}

const NONE: Running = { revision: 0, config: {}, values: {} };

/**
 * The revision the agent last ran, read again with this version's schema; none when there is
 * no file or it no longer reads (then logged: the local configuration alone applies).
 */
export function loadRemoteConfig(dataDir: string, log: Logger): Running {
  const path = join(dataDir, REMOTE_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return NONE;
  }
  try {
    const m = JSON.parse(text) as ConfigMessage;
    if (!Number.isSafeInteger(m.revision) || m.revision < 0) throw new OptionError("no revision number");
    return { revision: m.revision, config: m.config, values: readRemoteConfig(m.config) };
  } catch (e) {
    log.warn("ignoring the stored remote configuration; the local configuration alone applies until the collector sends one", { file: path, err: (e as Error).message });
    return NONE;
  }
}

/**
 * Remote configuration on the agent (docs/fleet.md): a revision from the collector is checked
 * with the schema the collector used, merged over the local configuration (pinned options kept
 * local), applied live as SIGHUP applies options, all or nothing, then kept on disk and
 * reported on `config-status`: the revision now in effect, or why it was refused (the
 * previous one stays).
 */
export class RemoteConfigAgent {
  private running: Running;
  private queue: Promise<void> = Promise.resolve();
  private last: ConfigStatus | undefined;
  /** A collector that sends configurations is on the other end: reports may be published (an older one would drop the connection). */
  private heard = false;

  constructor(
    private readonly o: {
      dataDir: string;
      live: LiveOptions;
      pinned: ReadonlySet<string> | "all";
      instance: string;
      enc: Encoder;
      dec: Decoder;
      publish(payload: Uint8Array): Promise<void>;
      log: Logger;
      initial: Running;
    },
  ) {
    this.running = o.initial;
  }

  /** The revision in effect (0: none). */
  get revision(): number {
    return this.running.revision;
  }

  /** The local values with the running revision laid over them. */
  overlay(): Overlay {
    const remote = this.running.values;
    return (local) => mergeRemote(local, remote, this.o.pinned).values;
  }

  /** A message on the `config` topic; applied one after another. */
  onMessage(payload: Uint8Array): Promise<void> {
    if (payload.length === 0) return this.queue; // a cleared retained message
    this.heard = true;
    const job = this.queue.then(() => this.apply(payload));
    this.queue = job.catch((e) => this.o.log.error("applying a remote configuration failed", { err: (e as Error).message }));
    return this.queue;
  }

  /** The connection is lost: on the next one, reports wait for the collector's first message (a retained one comes at once). */
  linkDown(): void {
    this.heard = false;
  }

  /** Says the last report again (the claim on the feed was granted after a refusal). */
  reportAgain(): void {
    if (this.last) void this.publish(this.last);
  }

  private async apply(payload: Uint8Array): Promise<void> {
    let m: ConfigMessage;
    try {
      m = decodeConfig(this.o.dec, payload);
    } catch (e) {
      this.o.log.warn("ignoring an invalid configuration message", { err: e instanceof ProtocolError ? e.message : String(e) });
      return;
    }
    const { revision } = m;
    const was = this.running.revision;
    if (revision === was && JSON.stringify(m.config) === JSON.stringify(this.running.config)) {
      return this.report({ revision, state: "applied", running: was, ...this.kept(this.running.values) });
    }
    let values: OptionValues;
    try {
      values = readRemoteConfig(m.config);
    } catch (e) {
      if (!(e instanceof OptionError)) throw e;
      this.o.log.error(`refused remote configuration revision ${revision}; keeping revision ${was}`, { err: e.message });
      return this.report({ revision, state: "failed", running: was, error: e.message });
    }
    const failed = await this.o.live.setOverlay((local) => mergeRemote(local, values, this.o.pinned).values);
    if (failed.length > 0) {
      const error = failed.map((f) => `${f.what}: ${f.err}`).join("; ");
      this.o.log.error(`could not apply remote configuration revision ${revision}; keeping revision ${was}`, { err: error });
      return this.report({ revision, state: "failed", running: was, error });
    }
    this.running = { revision, config: m.config, values };
    try {
      writePrivateFile(join(this.o.dataDir, REMOTE_CONFIG_FILE), JSON.stringify({ revision, config: m.config }));
    } catch (e) {
      // It runs; a restart without network would start from the local configuration instead.
      this.o.log.warn("could not keep the remote configuration on disk", { err: (e as Error).message });
    }
    const kept = this.kept(values);
    this.o.log.info(revision === 0 ? "remote configuration removed: the local configuration alone applies" : `applied remote configuration revision ${revision}`, {
      previous: was,
      pinnedKept: kept.kept?.join(",") || undefined,
    });
    return this.report({ revision, state: "applied", running: revision, ...kept });
  }

  private kept(values: OptionValues): { kept?: string[] } {
    const kept = mergeRemote({}, values, this.o.pinned).kept;
    return kept.length > 0 ? { kept } : {};
  }

  private async report(s: Omit<ConfigStatus, "instance">): Promise<void> {
    this.last = { ...s, instance: this.o.instance };
    if (this.heard) await this.publish(this.last);
  }

  private async publish(s: ConfigStatus): Promise<void> {
    try {
      await this.o.publish(encodeConfigStatus(this.o.enc, s));
    } catch (e) {
      // Reported again when the collector next sends the configuration (every reconnect).
      this.o.log.debug("could not report the configuration status", { err: (e as Error).message });
    }
  }
}
