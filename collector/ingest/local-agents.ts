import { publishLocalCollector } from "../../src/config/local-collector.ts";
import type { Logger } from "../../src/log/logger.ts";

/**
 * Tells a person how to start an agent against the broker this collector listens on (the exact
 * command, with the port it took), and agents of this user on this machine where to find it
 * when they are started without --broker (src/config/local-collector.ts). Returns the closer
 * that removes the file again.
 */
export function announceToLocalAgents(brokerUrl: string, httpUrl: string, agentCommand: string, log: Logger): () => void {
  let file: string | undefined;
  let remove = () => {};
  try {
    const published = publishLocalCollector({ broker: brokerUrl, http: httpUrl });
    file = published.file;
    remove = published.remove;
  } catch (e) {
    log.warn("agents on this machine will not find this broker by themselves: give them --broker", { err: (e as Error).message });
  }
  log.info(`start an agent: ${agentCommand} --tenant acme${file ? " (on this machine --broker may be left out)" : ""}`, { console: `${httpUrl}/`, ...(file ? { found: file } : {}) });
  return remove;
}
