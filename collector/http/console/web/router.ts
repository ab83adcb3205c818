import { useEffect, useState } from "preact/hooks";

/**
 * Where the page is: the hash names the view (`#/metrics?ids=…`), so every view is a link
 * the server need not know; the tenant is the real query parameter `?tenant=`, so a link can
 * point at one tenant's fleet.
 */
export interface Route {
  /** Path segments after `#/`, decoded: `#/inventory/web-1` → ["inventory", "web-1"]. */
  path: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, "");
  const q = text.indexOf("?");
  const pathText = q < 0 ? text : text.slice(0, q);
  const path = pathText
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { path, query: new URLSearchParams(q < 0 ? "" : text.slice(q + 1)) };
}

/** A hash link: `href(["inventory", feed], {r: path})`. */
export function href(path: readonly string[], query?: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== "") qs.set(k, v);
  const s = qs.toString();
  return `#/${path.map(encodeURIComponent).join("/")}${s ? `?${s}` : ""}`;
}

/** Moves to a view; `replace` does not add a history entry (filters typed into a view). */
export function navigate(hash: string, replace = false): void {
  if (replace) {
    history.replaceState(history.state, "", `${location.pathname}${location.search}${hash}`);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else location.hash = hash;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

export function tenantInUrl(): string | undefined {
  return new URLSearchParams(location.search).get("tenant") ?? undefined;
}

/** Writes the tenant into `?tenant=` (no reload, no history entry). */
export function setTenantInUrl(tenant: string): void {
  const q = new URLSearchParams(location.search);
  q.set("tenant", tenant);
  history.replaceState(history.state, "", `${location.pathname}?${q.toString()}${location.hash}`);
}
