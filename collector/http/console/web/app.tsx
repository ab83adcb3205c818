import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api, SessionInfo } from "./api.ts";
import { BrandMark } from "./brand.tsx";
import { Console } from "./context.ts";
import { errorText } from "./hooks.ts";
import { Login } from "./login.tsx";
import { AlertsPage } from "./pages/alerts-page.tsx";
import { FleetPage, prefetchFleet } from "./pages/fleet.tsx";
import { InventoryPage } from "./pages/inventory.tsx";
import { MetricsPage } from "./pages/metrics.tsx";
import { href, parseHash, type Route, setTenantInUrl, tenantInUrl, useRoute } from "./router.ts";
import { applyTheme, nextTheme, storedTheme, type Theme } from "./theme.ts";

const PAGES = [
  { id: "fleet", label: "Fleet" },
  { id: "metrics", label: "Metrics" },
  { id: "alerts", label: "Alerts" },
  { id: "inventory", label: "Inventory" },
] as const;

type PageId = (typeof PAGES)[number]["id"];

function pageOf(route: Route): PageId {
  const p = route.path[0];
  return PAGES.some((x) => x.id === p) ? (p as PageId) : "fleet";
}

/** The tenant to show: the link's `?tenant=` when the session may use it, else the first one held. */
function chooseTenant(s: SessionInfo): { tenant?: string; refused?: string } {
  const wanted = tenantInUrl();
  const held = s.tenants ?? [];
  if (wanted && (held.includes(wanted) || s.admin)) return { tenant: wanted };
  return { tenant: held[0], refused: wanted };
}

function Shell({ api, session, onLogout }: { api: Api; session: SessionInfo; onLogout: () => void }) {
  const route = useRoute();
  const initial = useMemo(() => chooseTenant(session), [session]);
  const [tenant, setTenant] = useState(initial.tenant);
  const [theme, setTheme] = useState<Theme>(storedTheme());
  const page = pageOf(route);
  const tenants = useMemo(() => {
    const list = [...(session.tenants ?? [])];
    if (tenant && !list.includes(tenant)) list.unshift(tenant);
    return list;
  }, [session, tenant]);

  api.tenant = tenant ?? "";
  useEffect(() => {
    if (tenant) setTenantInUrl(tenant);
    document.title = `${PAGES.find((p) => p.id === page)!.label}${tenant ? ` · ${tenant}` : ""} · Outpost`;
  }, [tenant, page]);

  const ctx = useMemo(() => ({ api, tenant: tenant ?? "", user: session.user }), [api, tenant, session.user]);
  return (
    <Console.Provider value={ctx}>
      <button type="button" class="skip-link btn" onClick={() => document.getElementById("content")?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <a class="brand" href={href(["fleet"])}>
          <BrandMark /> Outpost
        </a>
        <nav class="nav" aria-label="Views">
          {PAGES.map((p) => (
            <a key={p.id} href={href([p.id])} aria-current={page === p.id ? "page" : undefined}>
              {p.label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        <div class="topbar-tools">
          <label class="sr-only" for="tenant">
            Tenant
          </label>
          <select id="tenant" class="select" value={tenant} onChange={(e) => setTenant(e.currentTarget.value)} title="Tenant">
            {tenants.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn btn-ghost"
            title={`Theme: ${theme} (click to change)`}
            aria-label={`Colour theme: ${theme}. Change`}
            onClick={() => {
              const t = nextTheme(theme);
              applyTheme(t);
              setTheme(t);
            }}
          >
            {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}
          </button>
          {session.authRequired ? (
            <>
              <span class="user">{session.user}</span>
              <button type="button" class="btn" onClick={onLogout}>
                Log out
              </button>
            </>
          ) : null}
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {initial.refused && initial.refused !== tenant ? (
          <div class="banner error">This login does not hold tenant “{initial.refused}”; showing {tenant ?? "nothing"} instead.</div>
        ) : null}
        {!tenant ? (
          <div class="card empty">
            {session.admin ? "No tenant holds any data yet. Start an agent, or write a metric, and its tenant appears here." : "This login holds no tenant."}
          </div>
        ) : page === "fleet" ? (
          <FleetPage key={tenant} route={route} />
        ) : page === "metrics" ? (
          <MetricsPage key={tenant} route={route} />
        ) : page === "alerts" ? (
          <AlertsPage key={tenant} route={route} />
        ) : (
          <InventoryPage key={tenant} route={route} />
        )}
      </main>
    </Console.Provider>
  );
}

/** The session is known: when the first view is the fleet, ask for it while the page is being built. */
export function warmUp(api: Api, s: SessionInfo): void {
  api.csrf = s.csrf;
  const tenant = s.authenticated ? chooseTenant(s).tenant : undefined;
  if (tenant && pageOf(parseHash(location.hash)) === "fleet") prefetchFleet(api, tenant);
}

/** Shows the console, or the login form when an auth file requires one. `initial`: the session written into the page. */
export function App({ api, initial }: { api: Api; initial?: SessionInfo }) {
  const [session, setSession] = useState<SessionInfo | undefined>(initial);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    applyTheme(storedTheme());
    if (initial) return;
    api.session().then((s) => {
      warmUp(api, s);
      setSession(s);
    }, (e) => setError(errorText(e)));
  }, []);
  const accept = (s: SessionInfo) => {
    api.csrf = s.csrf;
    setSession(s);
  };
  api.csrf = session?.csrf;
  api.onUnauthorized = () => {
    if (!session?.authenticated) return;
    setEnded(true);
    setSession({ ...session, authenticated: false, csrf: undefined });
  };
  if (error) return <div class="banner error">The collector did not answer: {error}</div>;
  if (!session) return null;
  if (!session.authenticated) return (
      <Login
        api={api}
        onLogin={(s) => {
          setEnded(false);
          accept(s);
        }}
        ended={ended}
      />
    );
  return (
    <Shell
      api={api}
      session={session}
      onLogout={async () => {
        await api.logout().catch(() => undefined);
        setEnded(false);
        setSession({ ...session, authenticated: false, csrf: undefined, user: undefined });
      }}
    />
  );
}
