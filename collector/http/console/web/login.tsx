import { useState } from "preact/hooks";
import { type Api, ApiError, type SessionInfo } from "./api.ts";
import { BrandMark } from "./brand.tsx";

/** The login form: the same user names and passwords as the HTTP interfaces (docs/security.md). */
export function Login({ api, onLogin, ended }: { api: Api; onLogin: (s: SessionInfo) => void; ended: boolean }) {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onLogin(await api.login(user, password));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "Wrong user name or password." : err instanceof Error ? err.message : String(err));
      setPassword("");
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">
          <BrandMark /> Outpost
        </h1>
        <p>{ended ? "Your session has ended. Log in again." : "Log in to the console."}</p>
        <div class="field">
          <label for="login-user">User name</label>
          <input id="login-user" class="input" name="username" autocomplete="username" value={user} onInput={(e) => setUser(e.currentTarget.value)} required autofocus />
        </div>
        <div class="field">
          <label for="login-password">Password</label>
          <input
            id="login-password"
            class="input"
            type="password"
            name="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            required
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
