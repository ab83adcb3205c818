import { useState } from "preact/hooks";
import { seg } from "../api.ts";
import { useConsole } from "../context.ts";
import { ago, count, dateTime } from "../format.ts";
import { errorText } from "../hooks.ts";
import { type FeedSummary, shortId } from "./fleet-model.ts";

/**
 * Identity conflicts (docs/fleet.md, "Identity"): agents that claimed a feed another agent
 * holds, typically a cloned device. Their data is not stored. An admin may move the feed to one
 * of them (the device that replaced the old one), or the conflict may be dismissed once the
 * clone got its own feed.
 */
export function ConflictsPanel({ feeds, now, changed }: { feeds: readonly FeedSummary[]; now: number; changed: () => void }) {
  const { api } = useConsole();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const rows = feeds.flatMap((f) => (f.conflicts ?? []).map((c) => ({ f, c })));
  if (rows.length === 0) return null;
  const act = async (key: string, run: () => Promise<unknown>) => {
    setBusy(key);
    setError(undefined);
    try {
      await run();
      changed();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section class="card card-body conflicts" aria-labelledby="conflicts-title">
      <h2 id="conflicts-title" class="bad">
        {count(rows.length)} identity {rows.length === 1 ? "conflict" : "conflicts"}: another agent claims a feed that is held
      </h2>
      <p class="muted small">
        Their data is not stored, so the feed's series are not mixed; each such agent logged what to do. A cloned device needs its own --feed; a device that replaced the
        holder takes the feed over when an admin moves it.
      </p>
      {error ? <div class="banner error">{error}</div> : null}
      <table class="data" aria-label="Identity conflicts">
        <thead>
          <tr>
            <th>Feed</th>
            <th>Held by</th>
            <th>Claimed by</th>
            <th>Claims</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map(({ f, c }) => {
            const key = `${f.feed}\u0000${c.instance}`;
            return (
              <tr key={key} data-conflict={key}>
                <td class="cell-main">{f.feed}</td>
                <td>
                  {f.identity ? (
                    <>
                      <span class="mono" title={f.identity.instance}>
                        {shortId(f.identity.instance)}
                      </span>
                      <div class="cell-sub" title={dateTime(f.identity.since)}>
                        {f.identity.host ?? "?"} · since {ago(f.identity.since, now)}
                      </div>
                    </>
                  ) : (
                    <span class="faint">nobody now</span>
                  )}
                </td>
                <td>
                  <span class="mono" title={c.instance}>
                    {shortId(c.instance)}
                  </span>
                  <div class="cell-sub">{c.host ?? "?"}</div>
                </td>
                <td title={`first ${dateTime(c.firstAt)}, last ${dateTime(c.lastAt)}`}>
                  {count(c.attempts)} · last {ago(c.lastAt, now)}
                </td>
                <td class="nowrap">
                  <button
                    type="button"
                    class="btn"
                    disabled={busy !== undefined}
                    onClick={() => act(key, () => api.put(`svc/fleet/feeds/${seg(f.feed)}/identity`, undefined, { instance: c.instance }))}
                    title="The feed's data then comes from this agent only (needs an admin)"
                  >
                    Move feed here
                  </button>{" "}
                  <button
                    type="button"
                    class="btn btn-ghost"
                    disabled={busy !== undefined}
                    onClick={() => act(key, () => api.json("DELETE", `svc/fleet/feeds/${seg(f.feed)}/conflicts/${seg(c.instance)}`))}
                  >
                    Dismiss
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
