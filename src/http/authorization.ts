/**
 * The `Authorization` header as Hawkular's clients send it: HTTP Basic (the python and go
 * clients, the Grafana datasource with basic auth) or a bearer token (Grafana's token field).
 */
export type PresentedCredential = { scheme: "basic"; user: string; password: string } | { scheme: "bearer"; token: string };

/** The credential in the header; undefined when there is none; a string saying why when malformed. */
export function parseAuthorization(header: string | undefined): PresentedCredential | string | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m) return "the Authorization header is not 'Basic <base64>' or 'Bearer <token>'";
  const scheme = m[1]!.toLowerCase();
  // InfluxDB 2 clients (Telegraf's influxdb_v2 output) send their token as "Token <token>".
  if (scheme === "bearer" || scheme === "token") return { scheme: "bearer", token: m[2]! };
  if (scheme !== "basic") return `the Authorization scheme '${m[1]}' is not supported; use Basic or Bearer`;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(m[2]!), (ch) => ch.charCodeAt(0)));
  } catch {
    return "the Basic credentials are not valid base64 of UTF-8 text";
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return "the Basic credentials are not 'user:password'";
  return { scheme: "basic", user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The challenges of a 401: both schemes, so browsers prompt and token clients know what to send. */
export function authenticateChallenges(realm: string): string {
  return `Basic realm="${realm}", charset="UTF-8", Bearer realm="${realm}"`;
}
