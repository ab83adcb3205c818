import type { OptionValues } from "../../src/config/options.ts";
import { BodyBudget, type BodyLimit, bodyPaceOf, SERVER_BODY_CAP } from "../../src/http/body-limit.ts";
import { allowedHostPredicate } from "../../src/http/host-check.ts";
import type { Logger } from "../../src/log/logger.ts";
import { listenError } from "../../src/net/listen.ts";
import { isLoopbackHost } from "../../src/net/loopback.ts";

/** Characters below which an api token served beyond loopback is warned about (128 bits as hex is 32). */
const MIN_NETWORK_TOKEN = 20;

/** What the server gives the app it serves: body limits, the token and the Host check. */
export interface LocalServerGuards {
  bodies: BodyLimit;
  apiToken?: string;
  allowedHost: (host: string) => boolean;
}

/**
 * Starts the agent's local HTTP server (write API, inputs, reads, on-site view) on `at`, saying
 * what is open beyond loopback. A taken or invalid address is refused with one line naming --listen.
 */
export function startLocalServer(
  o: { listen: string; at: { hostname: string; port: number }; values: OptionValues; apiToken?: string; tenant: string; log: Logger },
  app: (guards: LocalServerGuards) => (request: Request) => Response | Promise<Response>,
): ReturnType<typeof Bun.serve> {
  const { at, apiToken, log } = o;
  if (!isLoopbackHost(at.hostname) && apiToken === undefined) log.warn(`--insecure: the local write API on ${at.hostname} accepts anyone, for tenant ${o.tenant}`);
  // Anyone on the network may try tokens: only a long random one holds (docs/security.md, "The agent's on-site view").
  if (!isLoopbackHost(at.hostname) && apiToken !== undefined && apiToken.length < MIN_NETWORK_TOKEN) {
    log.warn(`the api token has ${apiToken.length} characters: on ${at.hostname}, anyone on the network may guess at it; use a random one of ${MIN_NETWORK_TOKEN} or more (openssl rand -hex 16)`);
  }
  const maxBody = Number(o.values["max-request-body"] ?? 32 * 1024 ** 2);
  const bodies = { maxBytes: maxBody, budget: new BodyBudget(4 * maxBody), option: "--max-request-body", pace: bodyPaceOf(o.values) };
  const allowedHost = allowedHostPredicate((o.values["allowed-hosts"] as string[] | undefined) ?? []);
  const fetch = app({ bodies, apiToken, allowedHost });
  try {
    return Bun.serve({ ...at, fetch, maxRequestBodySize: SERVER_BODY_CAP });
  } catch (e) {
    throw listenError(e, "the local write API's address", o.listen, "--listen");
  }
}
