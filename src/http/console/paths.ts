/** Where a console is served (the collector's, and an agent's on-site view): its page at `/` and `/console/`, its assets and its session API. */
export const CONSOLE_PAGES = ["/", "/console", "/console/"] as const;
export const ASSETS_PREFIX = "/console/assets/";
export const SESSION_API = { session: "/console/api/session", login: "/console/api/login", logout: "/console/api/logout" } as const;

/** The console paths any client may reach with an auth file: nothing of a tenant's is in them. */
export function isConsoleOpenPath(path: string, method: string): boolean {
  if (method === "POST") return path === SESSION_API.login || path === SESSION_API.logout;
  if (method !== "GET" && method !== "HEAD") return false;
  return (CONSOLE_PAGES as readonly string[]).includes(path) || path === SESSION_API.session || (path.startsWith(ASSETS_PREFIX) && !path.slice(ASSETS_PREFIX.length).includes("/"));
}
