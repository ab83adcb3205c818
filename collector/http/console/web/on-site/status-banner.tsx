import { useState } from "preact/hooks";
import type { OnSiteStatus } from "../../../../../src/http/console/names.ts";
import type { Api } from "../api.ts";
import { usePolling } from "../hooks.ts";
import { statusText } from "./status-model.ts";

/** How often the banner asks the agent again: about its collection tick, so a link coming back shows within seconds. */
const STATUS_EVERY_MS = 5000;

/** Says whose data this is, that it is read here on the agent, and how the agent's link and buffer are. */
export function StatusBanner({ api, feed, tenant }: { api: Api; feed: string; tenant: string }) {
  const [status, setStatus] = useState<OnSiteStatus>();
  const error = usePolling(
    async (signal) => {
      setStatus(await api.json<OnSiteStatus>("GET", "console/api/status", { tenant: false, signal }));
    },
    STATUS_EVERY_MS,
    [],
  );
  const text = status && statusText(status);
  return (
    <section class={`on-site-banner ${text?.tone ?? "online"}`} aria-label="This agent" data-testid="on-site-banner" data-tone={text?.tone}>
      <p class="on-site-title">
        <strong>Local view of feed {feed}</strong> <span class="muted">(tenant {tenant})</span>, read from this agent's own buffer, read-only. Nothing here reaches
        the collector.
      </p>
      {text ? (
        <>
          <p class="on-site-headline" data-testid="on-site-link">
            {text.headline}
          </p>
          <ul class="on-site-details">
            {text.details.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </>
      ) : null}
      {error ? <p class="on-site-headline">The agent did not answer: {error}</p> : null}
    </section>
  );
}
