import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api, SessionInfo } from "../api.ts";
import { BrandMark } from "../brand.tsx";
import { SkipLink } from "../components/skip-link.tsx";
import { ThemeToggle } from "../components/theme-toggle.tsx";
import { Console } from "../context.ts";
import { MetricsPage } from "../pages/metrics.tsx";
import { href, useRoute } from "../router.ts";
import { StatusBanner } from "./status-banner.tsx";
import { TokenLogin } from "./token-login.tsx";

/**
 * The agent's on-site view (docs/console.md, "On site"): the console's metrics page over the
 * agent's local window, under a banner saying whose data it is and how the agent's link and
 * buffer are. No other page and nothing that writes: the agent's session admits reads only.
 */
function Shell({ api, session, onLogout }: { api: Api; session: SessionInfo; onLogout: () => void }) {
  const route = useRoute();
  const onSite = session.onSite!;
  const tenant = onSite.tenant ?? session.tenants?.[0] ?? "";
  api.tenant = tenant;
  useEffect(() => {
    document.title = `${onSite.feed} · on site · Outpost`;
  }, [onSite.feed]);
  const ctx = useMemo(() => ({ api, tenant, onSite: { windowMs: onSite.windowMs } }), [api, tenant, onSite.windowMs]);
  return (
    <Console.Provider value={ctx}>
      <SkipLink />
      <header class="topbar">
        <a class="brand" href={href(["metrics"])}>
          <BrandMark /> Outpost
        </a>
        <span class="badge info">On site</span>
        <span class="mono">{onSite.feed}</span>
        <span class="badge">Read-only</span>
        <span class="spacer" />
        <div class="topbar-tools">
          <ThemeToggle />
          {session.authRequired ? (
            <button type="button" class="btn" onClick={onLogout}>
              Log out
            </button>
          ) : null}
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        <StatusBanner api={api} feed={onSite.feed} tenant={tenant} />
        <MetricsPage route={route} />
      </main>
    </Console.Provider>
  );
}

/** The token login when the agent has an api token, then the view. `initial`: the session written into the page. */
export function OnSiteApp({ api, initial }: { api: Api; initial?: SessionInfo }) {
  const [session, setSession] = useState<SessionInfo | undefined>(initial);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    // A page opened from another site's link (or a new tab) came without the SameSite=Strict
    // cookie, so its embedded session says "log in": this same-site call carries the cookie.
    if (initial && (initial.authenticated || !initial.authRequired)) return;
    api.session().then(
      (s) => setSession((now) => (s.authenticated || !now ? s : now)),
      (e) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, []);
  api.onUnauthorized = () => {
    if (!session?.authenticated || !session.authRequired) return;
    setEnded(true);
    setSession({ ...session, authenticated: false });
  };
  if (error) return <div class="banner error">The agent did not answer: {error}</div>;
  if (!session) return null;
  if (!session.onSite) return <div class="banner error">This page is an agent's on-site view, but the server is not an agent.</div>;
  if (!session.authenticated) {
    return (
      <TokenLogin
        api={api}
        feed={session.onSite.feed}
        ended={ended}
        onLogin={(s) => {
          setEnded(false);
          setSession(s);
        }}
      />
    );
  }
  return (
    <Shell
      api={api}
      session={session}
      onLogout={async () => {
        await api.logout().catch(() => undefined);
        setEnded(false);
        setSession({ ...session, authenticated: false });
      }}
    />
  );
}
