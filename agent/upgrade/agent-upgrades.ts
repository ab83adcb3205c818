import type { Decoder } from "cbor-x";
import type { OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { releasePublicKeyOf } from "../../src/release/key-option.ts";
import { type Guard, startGuard } from "./guard.ts";
import { watchProbation } from "./probation.ts";
import { Upgrader } from "./upgrader.ts";

export interface AgentUpgrades {
  upgrader: Upgrader;
  /** After the link started: a new version on probation watches for its first acknowledged batch. */
  watch(linkReady: () => boolean, lastAckAt: () => number | undefined): void;
  /** The agent is told to stop: a probation under way is interrupted, or the agent itself stops. */
  stop(stopAgent: () => Promise<void>): Promise<void>;
}

/**
 * The agent's part of upgrades (docs/fleet.md, "Upgrades"), put together: the upgrader that takes
 * orders, and the hand-over that stops this agent and guards the new version's probation.
 */
export function agentUpgrades(o: {
  values: OptionValues;
  dataDir: string;
  brokerUrl: string;
  password?: string;
  dec: Decoder;
  log: Logger;
  /** Publishes a fresh status (with the upgrade report). */
  reported(): void;
  /** Stops the agent (buffer, link, HTTP) for the hand-over. */
  stopAgent(): Promise<void>;
}): AgentUpgrades {
  const log = o.log.child("upgrade");
  let guard: Guard | undefined;
  let probation: { stop(): void } | undefined;
  const upgrader = new Upgrader({
    dataDir: o.dataDir,
    publicKey: releasePublicKeyOf(o.values),
    access: {
      brokerUrl: o.brokerUrl,
      collectorUrl: o.values["collector-url"] === undefined ? undefined : String(o.values["collector-url"]),
      username: o.values.username === undefined ? undefined : String(o.values.username),
      password: o.password,
      caFile: o.values["ca-file"] === undefined ? undefined : String(o.values["ca-file"]),
    },
    dec: o.dec,
    log,
    reported: o.reported,
    async handOver({ version, deadlineMs }) {
      await o.stopAgent();
      // The child gets what the shell's stop would give this process, less a margin for the guard's own exit.
      const stopMs = Math.max(1000, Number(o.values["shutdown-timeout"] ?? 10_000) - 2000);
      guard = startGuard({ dataDir: o.dataDir, version, deadlineMs, stopMs, log });
    },
  });
  return {
    upgrader,
    watch(linkReady, lastAckAt) {
      probation = watchProbation({ dataDir: o.dataDir, linkReady, lastAckAt, log });
    },
    async stop(stopAgent) {
      probation?.stop();
      upgrader.close();
      if (guard) return guard.stop();
      await stopAgent();
    },
  };
}
