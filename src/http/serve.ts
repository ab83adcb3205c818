/**
 * Stops taking connections and lets requests in progress finish for up to `graceMs`, then
 * closes what is left (long-lived watch streams and websockets).
 */
export async function stopServer(server: { stop(closeActiveConnections?: boolean): Promise<void> | void }, graceMs: number): Promise<void> {
  const graceful = Promise.resolve(server.stop(false)).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([graceful, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
  clearTimeout(timer);
  await server.stop(true);
}
