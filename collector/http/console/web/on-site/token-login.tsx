import { useState } from "preact/hooks";
import { type Api, ApiError, type SessionInfo } from "../api.ts";
import { BrandMark } from "../brand.tsx";

/** The on-site login: the agent's api token, once; the agent answers with a read-only session cookie. */
export function TokenLogin({ api, feed, onLogin, ended }: { api: Api; feed: string; onLogin: (s: SessionInfo) => void; ended: boolean }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const s = await api.json<SessionInfo>("POST", "console/api/login", { body: { token }, tenant: false });
      if (s) onLogin(s);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "Wrong api token." : err instanceof Error ? err.message : String(err));
      setToken("");
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">
          <BrandMark /> Outpost on site
        </h1>
        <p>
          {ended ? "Your session has ended. " : ""}The local view of agent <strong>{feed}</strong> is read with its api token (the agent's <code>api-token</code>).
        </p>
        <div class="field">
          <label for="login-token">Api token</label>
          <input
            id="login-token"
            class="input"
            type="password"
            name="password"
            autocomplete="current-password"
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
            required
            autofocus
          />
        </div>
        {error ? (
          <div class="banner error" role="alert">
            {error}
          </div>
        ) : null}
        <button class="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
      </form>
    </main>
  );
}
