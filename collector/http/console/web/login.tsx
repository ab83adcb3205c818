import { useState } from "preact/hooks";
import type { Api, SessionInfo } from "./api.ts";
import { LoginCard } from "./components/login-card.tsx";

/** The login form: the same user names and passwords as the HTTP interfaces (docs/security.md). */
export function Login({ api, onLogin, ended }: { api: Api; onLogin: (s: SessionInfo) => void; ended: boolean }) {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  return (
    <LoginCard
      title="Outpost"
      intro={ended ? "Your session has ended. Log in again." : "Log in to the console."}
      wrong="Wrong user name or password."
      attempt={async () => onLogin(await api.login(user, password))}
      onFailed={() => setPassword("")}
    >
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
    </LoginCard>
  );
}
