import { OptionError } from "../../src/config/options.ts";
import { createServer, type Server, type Socket } from "node:net";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import type { Logger } from "../../src/log/logger.ts";
import { type AgentCredentials, publishDenied, subscribeAllowed } from "./agent-access.ts";
import { fixRead } from "./fix-read.ts";
import type { IngestTransport } from "./transport.ts";

export interface EmbeddedBrokerOptions {
  host: string;
  port: number;
  prefix: string;
  credentials: AgentCredentials;
  log: Logger;
}

function authError(message: string, code: 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * The collector's own MQTT broker (aedes over TCP), so one process is enough to run. The
 * collector consumes in-process (no client loop-back) and enforces who may publish what.
 */
export async function startEmbeddedBroker(o: EmbeddedBrokerOptions): Promise<IngestTransport & { port: number }> {
  const tenants = new WeakMap<Client, string>();
  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      if (!o.credentials.required) return done(null, true);
      const tenant = username === undefined || password === undefined ? undefined : o.credentials.check(username, password);
      if (tenant === undefined) {
        o.log.warn("agent refused: bad username or password", { clientId: client.id, username });
        return done(authError("bad username or password", 4), false);
      }
      tenants.set(client, tenant);
      done(null, true);
    },
    authorizePublish(client, packet, done) {
      if (!client) return done(null);
      const why = publishDenied(o.prefix, tenants.get(client), packet.topic);
      if (why) {
        o.log.warn("agent publish refused; disconnecting it", { clientId: client.id, topic: packet.topic, why });
        return done(new Error(why));
      }
      done(null);
    },
    authorizeSubscribe(client, sub, done) {
      if (subscribeAllowed(o.prefix, tenants.get(client), sub.topic)) return done(null, sub);
      o.log.warn("agent subscription refused", { clientId: client.id, topic: sub.topic });
      done(null, null);
    },
  });
  broker.on("clientError", (client, err) => o.log.debug("agent connection error", { clientId: client.id, err: err.message }));

  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});
    broker.handle(fixRead(sock));
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) =>
      reject(
        e.code === "EADDRINUSE"
          ? new OptionError(
              `MQTT port ${o.port} is already in use (another broker?): choose another with --mqtt-port, or use that broker with --mqtt-port 0 --broker mqtt://HOST:${o.port}`,
            )
          : e,
      );
    server.once("error", failed);
    server.listen(o.port, o.host, () => {
      server.off("error", failed);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : o.port;

  return {
    port,
    description: `embedded broker on ${o.host}:${port}`,
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
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
