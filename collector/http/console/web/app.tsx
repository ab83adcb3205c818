import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api, SessionInfo } from "./api.ts";
import { BrandMark } from "./brand.tsx";
import { SkipLink } from "./components/skip-link.tsx";
import { ThemeToggle } from "./components/theme-toggle.tsx";
import { Console } from "./context.ts";
import { errorText } from "./hooks.ts";
import { Login } from "./login.tsx";
import { AlertsPage } from "./pages/alerts-page.tsx";
import { FleetPage, prefetchFleet } from "./pages/fleet.tsx";
import { FleetConfigPage } from "./pages/fleet-config.tsx";
import { InventoryPage } from "./pages/inventory.tsx";
import { MetricsPage } from "./pages/metrics.tsx";
import { RolloutsPage } from "./pages/rollouts.tsx";
import { href, parseHash, type Route, setTenantInUrl, tenantInUrl, useRoute } from "./router.ts";
import { applyTheme, storedTheme } from "./theme.ts";

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

/**
 * The tenant to show: the link's `?tenant=` when the session may use it, else the first one held
 * that is not the collector's own metrics (a newcomer's first screen is their data, or how to
 * send some).
 */
export function chooseTenant(s: SessionInfo, wanted = tenantInUrl()): { tenant?: string; refused?: string } {
  const held = s.tenants ?? [];
  if (wanted && (held.includes(wanted) || s.admin)) return { tenant: wanted };
  return { tenant: held.find((t) => t !== s.selfTenant), refused: wanted };
}

/** The first screen of a collector that holds no data yet: the exact command that sends some. */
function NoDataYet({ session, pick }: { session: SessionInfo; pick: (t: string) => void }) {
  const own = session.selfTenant && session.tenants?.includes(session.selfTenant) ? session.selfTenant : undefined;
  return (
    <div class="card card-body" data-testid="no-data-yet">
      <h2>No tenant holds any data yet</h2>
      {session.agentCommand ? (
        <>
          <p>Start an agent: it sends its host's metrics at once, under the tenant you name (any name will do).</p>
          <pre class="command">
            <code>{`${session.agentCommand} --tenant acme`}</code>
          </pre>
        </>
      ) : (
        <p>Start an agent with --broker pointing at this collector's MQTT broker and a --tenant of your choice, or write a metric with the HTTP interface.</p>
      )}
      <p class="muted small">
        A metric written over HTTP (POST /svc/metrics/gauges/raw with a Svc-Tenant header) makes its tenant appear here too.
        {own ? (
          <>
            {" "}
            The collector's own metrics are under{" "}
            <button type="button" class="btn btn-ghost" onClick={() => pick(own)}>
              {own}
            </button>
            .
          </>
        ) : null}
      </p>
    </div>
  );
}

function Shell({ api, session, onLogout }: { api: Api; session: SessionInfo; onLogout: () => void }) {
  const route = useRoute();
  const initial = useMemo(() => chooseTenant(session), [session]);
  const [tenant, setTenant] = useState(initial.tenant);
  const page = pageOf(route);
  const tenants = useMemo(() => {
    // The collector's own metrics last: they are there to be found, not to be opened first.
    const list = (session.tenants ?? []).filter((t) => t !== session.selfTenant);
    if (session.selfTenant && session.tenants?.includes(session.selfTenant)) list.push(session.selfTenant);
    if (tenant && !list.includes(tenant)) list.unshift(tenant);
    return list;
  }, [session, tenant]);

  api.tenant = tenant ?? "";
  useEffect(() => {
    if (tenant) setTenantInUrl(tenant);
    document.title = `${PAGES.find((p) => p.id === page)!.label}${tenant ? ` · ${tenant}` : ""} · Outpost`;
  }, [tenant, page]);

  const ctx = useMemo(() => ({ api, tenant: tenant ?? "", user: session.user, agentCommand: session.agentCommand }), [api, tenant, session.user, session.agentCommand]);
  return (
    <Console.Provider value={ctx}>
      <SkipLink />
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
          <select id="tenant" class="select" value={tenant ?? ""} onChange={(e) => setTenant(e.currentTarget.value || undefined)} title="Tenant">
            {tenant ? null : <option value="">No tenant</option>}
            {tenants.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <ThemeToggle />
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
          session.admin ? (
            <NoDataYet session={session} pick={setTenant} />
          ) : (
            <div class="card empty">This login holds no tenant.</div>
          )
        ) : page === "fleet" && route.path[1] === "config" ? (
          <FleetConfigPage key={tenant} route={route} />
        ) : page === "fleet" && route.path[1] === "rollouts" ? (
          <RolloutsPage key={tenant} route={route} />
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
