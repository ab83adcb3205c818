/** A release binary, relative to the fleet service's root: its bytes, not JSON. */
export const BINARY_PATH = /^\/releases\/[^/]+\/binaries\/[^/]+\/?$/;

/**
 * The one HTTP path an agent's MQTT credential may use (collector/http/authenticate.ts): the
 * download of a release binary, which it does with its own credential (docs/fleet.md).
 */
export function isAgentDownload(path: string, method: string): boolean {
  return (method === "GET" || method === "HEAD") && /^\/(svc|hawkular)\/fleet\/releases\/[^/]+\/binaries\/[^/]+\/?$/.test(path);
}
