import { useState } from "preact/hooks";
import type { Api, SessionInfo } from "../api.ts";
import { LoginCard } from "../components/login-card.tsx";

/** The on-site login: the agent's api token, once; the agent answers with a read-only session cookie. */
export function TokenLogin({ api, feed, onLogin, ended }: { api: Api; feed: string; onLogin: (s: SessionInfo) => void; ended: boolean }) {
  const [token, setToken] = useState("");
  return (
    <LoginCard
      title="Outpost on site"
      intro={
        <>
          {ended ? "Your session has ended. " : ""}The local view of agent <strong>{feed}</strong> is read with its api token (the agent's <code>api-token</code>).
        </>
      }
      wrong="Wrong api token."
      attempt={async () => {
        const s = await api.json<SessionInfo>("POST", "console/api/login", { body: { token }, tenant: false });
        if (s) onLogin(s);
      }}
      onFailed={() => setToken("")}
    >
      <div class="field">
        <label for="login-token">Api token</label>
        <input id="login-token" class="input" type="password" name="password" autocomplete="current-password" value={token} onInput={(e) => setToken(e.currentTarget.value)} required autofocus />
      </div>
    </LoginCard>
  );
}
