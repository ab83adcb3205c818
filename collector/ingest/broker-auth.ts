import type { AuthenticateError, Client } from "aedes";
import type { Logger } from "../../src/log/logger.ts";
import { agentClientId, isAgentClientIdOf } from "../../src/protocol/topics.ts";
import type { Principal } from "../auth/credentials.ts";
import type { AuthGate } from "../auth/gate.ts";
import type { MqttIdentity } from "./agent-access.ts";

/** Connected agents with what they logged in with, so a reload can drop revoked ones. */
export type AgentSessions = Map<Client, { principal: Principal; passwordHash: string }>;

type AuthenticateHandler = (client: Client, username: string | undefined, password: Buffer | undefined, done: (error: AuthenticateError | null, success: boolean | null) => void) => void;

// MQTT 3.1.1 CONNACK return codes.
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

function refuse(message: string, code: 2 | 3 | 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * The embedded broker's check of a connecting client, with an auth file: anonymous clients
 * are refused, the password is checked like HTTP's (same throttle), the credential must be an
 * agent's, and the client id must be that agent's own (agentClientId, with or without an
 * instance id). The last rule keeps a
 * client of another tenant or feed from taking the session over, which would disconnect the
 * agent and write "down" into its presence over and over.
 */
export function agentAuthenticator(gate: AuthGate, sessions: AgentSessions, identities: WeakMap<Client, MqttIdentity>, log: Logger): AuthenticateHandler {
  return (client, username, password, done) => {
    const address = (client.conn as { remoteAddress?: string }).remoteAddress ?? "unknown";
    if (username === undefined || username === "" || password === undefined) {
      log.warn("MQTT client refused: no credentials (anonymous clients are refused with an auth file)", { clientId: client.id, address });
      return done(refuse("not authorized", NOT_AUTHORIZED), false);
    }
    void gate.password(address, username, password.toString("utf8"), "mqtt").then((r) => {
      if (!r.ok) return done(refuse(r.throttledMs !== undefined ? "server unavailable" : "bad user name or password", r.throttledMs !== undefined ? SERVER_UNAVAILABLE : BAD_USERNAME_OR_PASSWORD), false);
      const p = r.principal;
      if (p.kind !== "agent") {
        log.warn("MQTT client refused: not an agent's credential", { clientId: client.id, user: p.name, address });
        return done(refuse("not authorized", NOT_AUTHORIZED), false);
      }
      const expected = agentClientId(p.tenant, p.feed);
      if (!isAgentClientIdOf(client.id, p.tenant, p.feed)) {
        log.warn("MQTT client refused: the client id is not the one of its credential's feed", { clientId: client.id, expected, user: p.name, address });
        return done(refuse("identifier rejected", IDENTIFIER_REJECTED), false);
      }
      identities.set(client, { kind: "agent", tenant: p.tenant, feed: p.feed });
      sessions.set(client, { principal: p, passwordHash: gate.credentials.passwordHashOf(p.name) ?? "" });
      done(null, true);
    });
  };
}
