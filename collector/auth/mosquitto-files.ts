import { AGENT_PUBLISHES, AGENT_SUBSCRIBES, encodeSegment, kindFilter, type TopicKind } from "../../src/protocol/topics.ts";
import type { AuthFile } from "./auth-file.ts";

/**
 * Mosquitto's files for the MQTT credentials of an auth file (docs/security.md, "External
 * Mosquitto"): each agent may publish and subscribe only its own feed's topics, the collector
 * account reads what agents publish and writes what agents receive (acks, triggers, upgrade orders). Users of the HTTP roles
 * (tenants, admin) and tokens are not MQTT credentials and are left out.
 */
export interface MosquittoFiles {
  passwordFile: string;
  aclFile: string;
  /** Lines to include in mosquitto.conf (besides a listener). */
  conf: string;
  agents: number;
  collectors: number;
}

const COLLECTOR_READS: TopicKind[] = ["data", "events", "inventory", "status"];
/** What agents subscribe to: acks, triggers, upgrade orders. */
const COLLECTOR_WRITES: TopicKind[] = [...AGENT_SUBSCRIBES];

export interface ListenerSettings {
  /** "PORT" or "PORT ADDRESS", as Mosquitto's listener line takes it. */
  listener: string;
  /** PEM files for MQTT over TLS on that listener. */
  certFile?: string;
  keyFile?: string;
}

export function renderMosquittoFiles(file: AuthFile, prefix: string, paths: { passwordFile: string; aclFile: string }, listener: ListenerSettings): MosquittoFiles {
  const passwords: string[] = [];
  const acl: string[] = ["# Written by `collector auth mosquitto-files` from the Outpost auth file; regenerate, do not edit.", ""];
  let agents = 0;
  let collectors = 0;
  for (const [name, u] of Object.entries(file.users).sort(([a], [b]) => a.localeCompare(b))) {
    if (!u.mosquitto || (!u.agent && !u.collector)) continue;
    passwords.push(`${name}:${u.mosquitto}`);
    acl.push(`user ${name}`);
    if (u.agent) {
      agents++;
      const base = `${prefix}/${encodeSegment(u.agent.tenant)}/${encodeSegment(u.agent.feed)}`;
      for (const k of AGENT_PUBLISHES) acl.push(`topic write ${base}/${k}`);
      for (const k of AGENT_SUBSCRIBES) acl.push(`topic read ${base}/${k}`);
    } else {
      collectors++;
      for (const k of COLLECTOR_READS) acl.push(`topic read ${kindFilter(prefix, k)}`);
      for (const k of COLLECTOR_WRITES) acl.push(`topic write ${kindFilter(prefix, k)}`);
    }
    acl.push("");
  }
  // Mosquitto applies listener options in an included file to its default listener, so the
  // listener is declared here, its options right under it.
  const conf = [
    "# Outpost: agents and the collector log in with the credentials of the auth file.",
    "# Written by `collector auth mosquitto-files`; regenerate, do not edit.",
    "allow_anonymous false",
    `password_file ${paths.passwordFile}`,
    `acl_file ${paths.aclFile}`,
    "",
    `listener ${listener.listener}`,
    "# The client id becomes the user name: nobody can take over another agent's session.",
    "use_username_as_clientid true",
    ...(listener.certFile && listener.keyFile ? [`certfile ${listener.certFile}`, `keyfile ${listener.keyFile}`] : []),
    "",
  ].join("\n");
  return { passwordFile: passwords.length ? `${passwords.join("\n")}\n` : "", aclFile: acl.join("\n"), conf, agents, collectors };
}
