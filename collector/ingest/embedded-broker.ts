import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { Aedes, type Client } from "aedes";
import type { Logger } from "../../src/log/logger.ts";
import { hostPort } from "../../src/net/listen.ts";
import type { AuthGate } from "../auth/gate.ts";
import type { TlsMaterial } from "../tls.ts";
import { type MqttIdentity, OPEN_MQTT, publishDenied, subscribeDenied } from "./agent-access.ts";
import { agentAuthenticator, type AgentSessions } from "./broker-auth.ts";
import { fixRead } from "./fix-read.ts";
import { ConnectionGuard, type ConnectionLimits, type GuardEvent } from "./connection-guard.ts";
import { createLogThrottle } from "../../src/log/throttle.ts";
import { listen } from "./listen.ts";
import type { IngestTransport } from "./transport.ts";

export interface EmbeddedBrokerOptions {
  /** Address of the TLS listener, and of the plain one unless `plainHost` says otherwise. */
  host: string;
  /** Address of the plain listener (collector/exposure.ts, plainMqttHost). */
  plainHost?: string;
  /** Plain MQTT port; 0 for none (TLS only). */
  port: number;
  /** MQTT over TLS on its own port, when the collector has a certificate. */
  tls?: { port: number; material: TlsMaterial };
  prefix: string;
  /** Largest MQTT packet accepted, and what a client may do before it has logged in (connection-guard.ts). */
  limits: ConnectionLimits;
  /** Checks agents' credentials; none without --auth-file (loopback only, any client). */
  gate?: AuthGate;
  log: Logger;
  /** The port is the default, not chosen: when it is taken, listen on a free one and say so. */
  portFallback?: boolean;
}

export interface EmbeddedBroker extends IngestTransport {
  port?: number;
  /** The plain listener's URL as a client on this machine reaches it. */
  plainUrl?: string;
  tlsPort?: number;
  /** Connections not yet logged in. */
  pendingClients(): number;
  /** After SIGHUP: disconnects agents whose credential is gone or changed, and serves new certificates. */
  reload(material?: TlsMaterial): void;
}

function secureContextOptions(m: TlsMaterial) {
  return { cert: m.cert, key: m.key, ...(m.clientCa ? { ca: m.clientCa, requestCert: true, rejectUnauthorized: true } : {}) };
}

/**
 * The collector's own MQTT broker (aedes over TCP and TLS), so one process is enough to run.
 * The collector consumes in-process (no client loop-back) and enforces who may publish what.
 */
export async function startEmbeddedBroker(o: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const identities = new WeakMap<Client, MqttIdentity>();
  const identity = (c: Client | null) => (c ? (identities.get(c) ?? OPEN_MQTT) : OPEN_MQTT);
  const sessions: AgentSessions = new Map();
  const guard = new ConnectionGuard(o.limits, guardLogger(o.log));
  const check = o.gate ? agentAuthenticator(o.gate, sessions, identities, o.log) : (_c: Client, _u: unknown, _p: unknown, done: (e: null, ok: boolean) => void) => done(null, true);
  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      check(client, username, password, (err, ok) => {
        if (!err && ok) guard.loggedIn(client.conn as Socket);
        done(err, ok);
      });
    },
    authorizePublish(client, packet, done) {
      if (!client) return done(null);
      const why = publishDenied(o.prefix, identity(client), packet.topic);
      if (why) {
        o.log.warn("agent publish refused; disconnecting it", { clientId: client.id, topic: packet.topic, why });
        return done(new Error(why));
      }
      done(null);
    },
    authorizeSubscribe(client, sub, done) {
      const why = subscribeDenied(o.prefix, identity(client), sub.topic);
      if (why === undefined) return done(null, sub);
      o.log.warn("agent subscription refused", { clientId: client.id, topic: sub.topic, why });
      done(null, null);
    },
  });
  broker.on("clientError", (client, err) => o.log.debug("agent connection error", { clientId: client.id, err: err.message }));
  broker.on("clientDisconnect", (client) => sessions.delete(client));

  const sockets = new Set<Socket>();
  const accept = (sock: Socket) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});
    const guarded = guard.admit(fixRead(sock));
    if (guarded) broker.handle(guarded);
  };
  const servers: Server[] = [];
  const plainHost = o.plainHost ?? o.host;
  let port: number | undefined;
  let tlsPort: number | undefined;
  let tlsServer: ReturnType<typeof createTlsServer> | undefined;
  try {
    if (o.port > 0) {
      const plain = createServer(accept);
      port = await listen(plain, plainHost, o.port, "--mqtt-port", o.portFallback ? o.log : undefined);
      servers.push(plain);
    }
    if (o.tls) {
      // A TLS handshake is part of the time to log in: Node's default would allow 120 s.
      tlsServer = createTlsServer({ ...secureContextOptions(o.tls.material), handshakeTimeout: o.limits.preAuthMs }, (sock: TLSSocket) => accept(sock));
      // A client that fails the handshake (no or a wrong client certificate) is logged as such.
      tlsServer.on("tlsClientError", (err, sock) => o.log.warn("MQTT TLS handshake failed", { address: sock.remoteAddress, err: err.message }));
      tlsPort = await listen(tlsServer, o.host, o.tls.port, "--mqtts-port");
      servers.push(tlsServer);
    }
  } catch (e) {
    for (const s of servers) s.close();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw e;
  }
  const where = [port !== undefined ? `mqtt://${plainHost}:${port}` : "", tlsPort !== undefined ? `mqtts://${o.host}:${tlsPort}` : ""].filter(Boolean).join(" and ");
  // Where it really listens, the ports the system chose included.
  const reachable = (h: string) => (h === "0.0.0.0" || h === "::" ? "127.0.0.1" : h);
  if (port !== undefined) o.log.info("MQTT broker listening", { address: hostPort(plainHost, port), url: `mqtt://${hostPort(reachable(plainHost), port)}` });
  if (tlsPort !== undefined) o.log.info("MQTT broker listening", { address: hostPort(o.host, tlsPort), url: `mqtts://${hostPort(reachable(o.host), tlsPort)}` });

  return {
    port,
    tlsPort,
    plainUrl: port === undefined ? undefined : `mqtt://${hostPort(reachable(plainHost), port)}`,
    description: `embedded broker on ${where}`,
    async start(filters, deliver) {
      for (const f of filters) {
        await new Promise<void>((resolve) =>
          broker.subscribe(
            f,
            (packet, cb) => {
              cb();
              deliver(packet.topic, packet.payload as Buffer);
            },
            resolve,
          ),
        );
      }
    },
    publish(topic, payload, retain = false) {
      return new Promise((resolve, reject) =>
        broker.publish({ cmd: "publish", topic, payload: Buffer.from(payload), qos: 1, retain, dup: false }, (err) => (err ? reject(err) : resolve())),
      );
    },
    connectedClients: () => broker.connectedClients,
    pendingClients: () => guard.pending,
    reload(material) {
      if (material && tlsServer) tlsServer.setSecureContext(secureContextOptions(material));
      if (!o.gate) return;
      for (const [client, s] of sessions) {
        if (o.gate.credentials.stillValid(s.principal, s.passwordHash)) continue;
        o.log.warn("agent disconnected: its credential was removed or changed", { clientId: client.id, user: s.principal.name });
        sessions.delete(client);
        client.close();
      }
    },
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** One warning per kind of breach and address group a minute (a flood must not flood the log). */
function guardLogger(log: Logger): (e: GuardEvent, address: string) => void {
  const throttle = createLogThrottle(60_000);
  return (e, address) => {
    const { pass, suppressed } = throttle(`${e.why} ${e.why === "too-many-pending" ? e.group : address}`);
    if (!pass) return;
    const more = { address, suppressedSinceLast: suppressed || undefined };
    if (e.why === "too-large" && e.loggedIn) log.warn("MQTT packet over --mqtt-max-packet: connection closed", { size: e.size, max: e.max, ...more });
    else if (e.why === "too-large") log.warn("MQTT client sent more than --mqtt-preauth-max-bytes before logging in: connection closed", { size: e.size, max: e.max, ...more });
    else if (e.why === "not-connect") log.warn("MQTT client sent another packet than CONNECT before logging in: connection closed", more);
    else if (e.why === "too-slow") log.warn("MQTT client not logged in within --mqtt-preauth-timeout: connection closed", { timeoutMs: e.ms, ...more });
    else log.warn("too many MQTT connections waiting to log in (--mqtt-preauth-max-connections): connection refused", { pending: e.pending, max: e.max, group: e.group, ...more });
  };
}
