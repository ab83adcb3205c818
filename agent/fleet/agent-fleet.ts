import { hostname } from "node:os";
import type { Decoder, Encoder } from "cbor-x";
import { parseTags, pinnedOptions } from "../../src/agent-config/fleet.ts";
import { mergeRemote } from "../../src/agent-config/remote.ts";
import { commonOptions } from "../../src/config/common-options.ts";
import { LiveOptions } from "../../src/config/live-options.ts";
import type { OptionValues } from "../../src/config/options.ts";
import { ReloadRegistry } from "../../src/config/reload.ts";
import type { ProgramContext } from "../../src/config/run-program.ts";
import { isLogLevel, type Logger } from "../../src/log/logger.ts";
import type { Status } from "../../src/protocol/control-messages.ts";
import { agentOptions } from "../config.ts";
import type { Publisher } from "../forward/forwarder.ts";
import { ClaimGate } from "./claim-gate.ts";
import { type AgentIdentity, loadOrCreateIdentity } from "./identity-file.ts";
import { loadRemoteConfig, RemoteConfigAgent } from "./remote-config.ts";

/**
 * The agent's part in fleet management (docs/fleet.md), opened right after its data folder:
 * its identity, the remote configuration it last ran (laid over the local options before
 * anything starts from them), and, once the MQTT link exists, its claim on the feed and the
 * configuration messages.
 */
export interface AgentFleet {
  identity: AgentIdentity;
  /** The options in effect: the local ones with the remote revision laid over them. */
  values: OptionValues;
  /** Where the parts that change while running register (SIGHUP and remote configuration). */
  reload: ReloadRegistry;
  tags: Record<string, string>;
  host: string;
  /** A status message's identity fields: with the signed claim when online. */
  statusFields(state: Status["state"], session: number, at: number): Partial<Status>;
  /** Once the link exists: the claim gate and the remote configuration. */
  attach(o: {
    link: Publisher;
    enc: Encoder;
    dec: Decoder;
    configStatusTopic: string;
    /** The claim was granted after a refusal: what waited may be sent now. */
    resumed(): void;
    /** Publishes the online status (the claim) again. */
    reclaim(): void;
  }): { gate: ClaimGate; remote: RemoteConfigAgent };
}

export function openAgentFleet(o: { values: OptionValues; tenant: string; feed: string; dataDir: string; ctx?: ProgramContext; log: Logger }): AgentFleet {
  const log = o.log.child("fleet");
  const identity = loadOrCreateIdentity(o.dataDir, log);
  const pinned = pinnedOptions(o.values);
  const tags = parseTags((o.values.tags as string[] | undefined) ?? []);
  const host = hostname();
  // Without a program shell (tests start the agent directly) it keeps its own registry.
  let reload = o.ctx?.reload;
  if (!reload) {
    reload = new ReloadRegistry();
    reload.register({ what: "log level", options: ["log-level"], apply: (v) => o.log.setLevel(isLogLevel(String(v["log-level"])) ? (v["log-level"] as never) : "info") });
  }
  const live = o.ctx?.live ?? new LiveOptions([...agentOptions, ...commonOptions({ shutdownTimeout: "10s" })], reload, o.values, o.log);
  const initial = loadRemoteConfig(o.dataDir, log);
  let remote: RemoteConfigAgent | undefined;
  live.adopt((local) => mergeRemote(local, initial.values, pinned).values);
  const values = live.values;
  if (initial.revision > 0) {
    const level = String(values["log-level"] ?? "info");
    if (isLogLevel(level) && level !== o.log.level) o.log.setLevel(level);
    log.info(`running remote configuration revision ${initial.revision} (kept from the last run)`);
  }
  return {
    identity,
    values,
    reload,
    tags,
    host,
    statusFields(state, session, at) {
      const base: Partial<Status> = { instance: identity.instance, host, ...(Object.keys(tags).length > 0 ? { tags } : {}) };
      if (state !== "online") return base;
      return { ...base, key: identity.publicKey, sig: identity.signClaim({ tenant: o.tenant, feed: o.feed, instance: identity.instance, session, at }) };
    },
    attach(a) {
      remote = new RemoteConfigAgent({
        dataDir: o.dataDir,
        live,
        pinned,
        instance: identity.instance,
        enc: a.enc,
        dec: a.dec,
        publish: (payload) => a.link.publish(a.configStatusTopic, payload),
        log,
        initial,
      });
      const r = remote;
      const gate = new ClaimGate({
        instance: identity.instance,
        tenant: o.tenant,
        feed: o.feed,
        identityFile: identity.path,
        dataDir: o.dataDir,
        dec: a.dec,
        log,
        resumed: () => {
          a.resumed();
          r.reportAgain();
        },
        reclaim: a.reclaim,
      });
      return { gate, remote: r };
    },
  };
}
