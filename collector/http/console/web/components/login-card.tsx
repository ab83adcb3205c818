import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { BrandMark } from "../brand.tsx";

/**
 * A login form's frame and its submission: the brand and a title, a sentence, the fields
 * (children), the refusal (`wrong` for a 401, else the server's message) and the button.
 */
export function LoginCard(p: { title: string; intro: ComponentChildren; wrong: string; attempt: () => Promise<void>; onFailed: () => void; children: ComponentChildren }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await p.attempt();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? p.wrong : err instanceof Error ? err.message : String(err));
      p.onFailed();
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">
          <BrandMark /> {p.title}
        </h1>
        <p>{p.intro}</p>
        {p.children}
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
