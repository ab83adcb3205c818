import { Fragment } from "preact";
import { Segmented } from "../components/segmented.tsx";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { seg } from "../api.ts";
import { AlertStatusBadge, SeverityBadge } from "../components/badges.tsx";
import { TextDialog } from "../components/text-dialog.tsx";
import { useConsole } from "../context.ts";
import { ago, count, dateTime } from "../format.ts";
import { errorText, useNow } from "../hooks.ts";
import { href, navigate, type Route } from "../router.ts";
import { type Alert, changedBy, evalText, filterAlerts, lastChange, mergeAlert, SEVERITIES, STATUSES } from "./alerts-model.ts";

const PERIODS = [
  { id: "24h", label: "24 h", ms: 86_400_000 },
  { id: "7d", label: "7 d", ms: 7 * 86_400_000 },
  { id: "30d", label: "30 d", ms: 30 * 86_400_000 },
];
const SHOWN = 500;
const STATUS_LABEL: Record<string, string> = { OPEN: "Open", ACKNOWLEDGED: "Acknowledged", RESOLVED: "Resolved" };

/**
 * The alerts of the period, kept current by the watch stream: it first sends every alert
 * created in the period, then each alert again whenever its lifecycle changes. Reconnects
 * with a growing pause when the stream breaks.
 */
function useAlertWatch(periodMs: number) {
  const { api, tenant } = useConsole();
  const [alerts, setAlerts] = useState<Map<string, Alert>>(new Map());
  const [live, setLive] = useState(false);
  const [error, setError] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    const ctl = new AbortController();
    let pending: Alert[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    // The first answer is a burst of alerts: apply them in batches, not one render each.
    const take = (a: Alert) => {
      pending.push(a);
      flush ??= setTimeout(() => {
        const batch = pending;
        pending = [];
        flush = undefined;
        setAlerts((m) => batch.reduce(mergeAlert, m));
        setLoaded(true);
      }, 60);
    };
    const run = async () => {
      let pause = 1000;
      while (!ctl.signal.aborted) {
        setAlerts(new Map());
        try {
          setLive(true);
          setError(undefined);
          // An empty period sends nothing: the list counts as loaded shortly after the stream opens.
          const opened = () => setTimeout(() => !ctl.signal.aborted && setLoaded(true), 200);
          await api.stream<Alert>("svc/alerts/watch", { startTime: Date.now() - periodMs }, take, ctl.signal, opened);
          pause = 1000;
        } catch (e) {
          if (ctl.signal.aborted) return;
          setError(errorText(e));
        }
        setLive(false);
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 30_000);
      }
    };
    void run();
    return () => {
      ctl.abort();
      clearTimeout(flush);
    };
  }, [tenant, periodMs]);
  const refresh = async (id: string) => {
    const a = await api.get<Alert>(`svc/alerts/alert/${seg(id)}`);
    if (a) setAlerts((m) => mergeAlert(m, a));
  };
  return { alerts, live, error, loaded, refresh };
}

type Pending = { kind: "ack" | "resolve" | "note"; ids: string[] };

function AlertDetail({ a }: { a: Alert }) {
  return (
    <div class="detail">
      <div class="cols">
        <div>
          <h3>What fired it</h3>
          <p class="mono">{evalText(a) ?? a.text ?? "—"}</p>
          {a.trigger?.description ? <p class="muted">{a.trigger.description}</p> : null}
          <p>
            <a href={href(["alerts", "triggers", a.trigger?.id ?? ""])}>History of trigger {a.trigger?.name ?? a.trigger?.id}</a>
          </p>
        </div>
        <div>
          <h3>Lifecycle</h3>
          <ul class="notes">
            {(a.lifecycle ?? []).map((l) => (
              <li key={`${l.status}${l.stime}`}>
                {STATUS_LABEL[l.status] ?? l.status} {dateTime(l.stime)}
                {l.user && l.user !== "system" ? ` by ${l.user}` : ""}
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3>Notes</h3>
          {a.notes?.length ? (
            <ul class="notes">
              {a.notes.map((n) => (
                <li key={n.ctime}>
                  <span class="muted">
                    {dateTime(n.ctime)} {n.user}:
                  </span>{" "}
                  {n.text}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No notes.</p>
          )}
        </div>
      </div>
    </div>
  );
}

/** Open, acknowledged and resolved alerts, filtered, acted upon, updated live. */
export function AlertsList({ route }: { route: Route }) {
  const { api, user } = useConsole();
  const period = PERIODS.find((p) => p.id === route.query.get("period")) ?? PERIODS[1]!;
  const statuses = useMemo(() => new Set((route.query.get("status") ?? "OPEN,ACKNOWLEDGED").split(",").filter(Boolean)), [route]);
  const severity = route.query.get("severity") ?? "";
  const text = route.query.get("q") ?? "";
  const { alerts, live, error, loaded, refresh } = useAlertWatch(period.ms);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<string>();
  const [pending, setPending] = useState<Pending>();
  const [actionError, setActionError] = useState<string>();
  const now = useNow(10_000);
  const selectAll = useRef<HTMLInputElement>(null);

  const shown = useMemo(() => filterAlerts(alerts.values(), { statuses, severity, text }), [alerts, statuses, severity, text]);
  const setQuery = (change: Record<string, string | undefined>) => {
    const q = Object.fromEntries(route.query);
    navigate(href(["alerts"], { ...q, ...change }), true);
  };
  const toggleStatus = (s: string) => {
    const next = new Set(statuses);
    if (next.has(s)) next.delete(s);
    else next.add(s);
    setQuery({ status: STATUSES.filter((x) => next.has(x)).join(",") || "none" });
  };
  const by = user ?? "console";

  const act = async (kind: Pending["kind"], ids: string[], note: string) => {
    setActionError(undefined);
    const alertIds = ids.join(",");
    if (kind === "ack") await api.put("svc/alerts/ack", { alertIds, ackBy: by, ackNotes: note || undefined });
    else if (kind === "resolve") await api.put("svc/alerts/resolve", { alertIds, resolvedBy: by, resolvedNotes: note || undefined });
    else for (const id of ids) await api.put(`svc/alerts/note/${seg(id)}`, { user: by, text: note });
    // The stream carries lifecycle changes, not notes: read the alerts back either way.
    await Promise.all(ids.map(refresh));
    setSelected(new Set());
  };
  const quickAck = (id: string) => act("ack", [id], "").catch((e) => setActionError(errorText(e)));

  const visibleIds = shown.slice(0, SHOWN).map((a) => a.id);
  const allSelected = visibleIds.length > 0 && visibleIds.every((id) => selected.has(id));
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = !allSelected && visibleIds.some((id) => selected.has(id));
  });
  const chosen = [...selected].filter((id) => alerts.has(id));

  return (
    <>
      <div class="toolbar">
        <Segmented label="Statuses shown" options={STATUSES.map((s) => ({ id: s, label: STATUS_LABEL[s]! }))} isOn={(s) => statuses.has(s)} onPick={toggleStatus} />
        <label class="sr-only" for="alert-severity">
          Severity
        </label>
        <select id="alert-severity" class="select" value={severity} onChange={(e) => setQuery({ severity: e.currentTarget.value || undefined })}>
          <option value="">Any severity</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s.charAt(0) + s.slice(1).toLowerCase()}
            </option>
          ))}
        </select>
        <label class="sr-only" for="alert-period">
          Created within
        </label>
        <select id="alert-period" class="select" value={period.id} onChange={(e) => setQuery({ period: e.currentTarget.value })}>
          {PERIODS.map((p) => (
            <option key={p.id} value={p.id}>
              Created in the last {p.label}
            </option>
          ))}
        </select>
        <label class="sr-only" for="alert-filter">
          Filter alerts
        </label>
        <input id="alert-filter" class="input" type="search" placeholder="Filter by trigger or text" value={text} onInput={(e) => setQuery({ q: e.currentTarget.value || undefined })} />
        <span class="grow" />
        <span class={`live${live ? "" : " stale"}`} aria-live="polite">
          <span class="dot" aria-hidden="true" />
          {live ? "Live" : "Reconnecting…"}
        </span>
      </div>
      <div class="toolbar">
        <button class="btn" type="button" disabled={chosen.length === 0} onClick={() => setPending({ kind: "ack", ids: chosen })}>
          Acknowledge selected
        </button>
        <button class="btn" type="button" disabled={chosen.length === 0} onClick={() => setPending({ kind: "resolve", ids: chosen })}>
          Resolve selected
        </button>
        <span class="muted small">{chosen.length ? `${chosen.length} selected` : ""}</span>
        <span class="grow" />
        <span class="muted small">
          {count(shown.length)} of {count(alerts.size)} alerts
          {shown.length > SHOWN ? ` (the newest ${SHOWN} shown)` : ""}
        </span>
      </div>
      {error ? <div class="banner error">The alert stream broke: {error}. Reconnecting.</div> : null}
      {actionError ? <div class="banner error">{actionError}</div> : null}
      <div class="table-wrap">
        <table class="data" aria-label="Alerts">
          <thead>
            <tr>
              <th scope="col" style={{ width: "34px" }}>
                <span>
                  <input
                    ref={selectAll}
                    type="checkbox"
                    aria-label="Select all shown alerts"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(visibleIds))}
                  />
                </span>
              </th>
              <th scope="col">
                <span>Severity</span>
              </th>
              <th scope="col">
                <span>Status</span>
              </th>
              <th scope="col">
                <span>Trigger</span>
              </th>
              <th scope="col">
                <span>Fired</span>
              </th>
              <th scope="col">
                <span>Last change</span>
              </th>
              <th scope="col" class="num">
                <span>Notes</span>
              </th>
              <th scope="col">
                <span>Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.slice(0, SHOWN).map((a) => (
              <Fragment key={a.id}>
                <tr data-alert={a.id} data-status={a.status}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select alert of ${a.trigger?.name ?? a.trigger?.id}`}
                      checked={selected.has(a.id)}
                      onChange={() => {
                        const next = new Set(selected);
                        if (next.has(a.id)) next.delete(a.id);
                        else next.add(a.id);
                        setSelected(next);
                      }}
                    />
                  </td>
                  <td>
                    <SeverityBadge severity={a.severity} />
                  </td>
                  <td>
                    <AlertStatusBadge status={a.status} />
                  </td>
                  <td>
                    <button type="button" class="btn-ghost btn btn-sm" aria-expanded={open === a.id} onClick={() => setOpen(open === a.id ? undefined : a.id)} style={{ padding: 0 }}>
                      <span class="cell-main">{a.trigger?.name ?? a.trigger?.id}</span>
                    </button>
                    <div class="cell-sub mono">{evalText(a) ?? a.text}</div>
                  </td>
                  <td class="nowrap" title={dateTime(a.ctime)}>
                    {ago(a.ctime, now)}
                  </td>
                  <td class="nowrap" title={dateTime(lastChange(a))}>
                    {ago(lastChange(a), now)}
                    {changedBy(a) ? <div class="cell-sub">by {changedBy(a)}</div> : null}
                  </td>
                  <td class="num">{a.notes?.length ? count(a.notes.length) : <span class="faint">—</span>}</td>
                  <td class="nowrap">
                    {a.status === "OPEN" ? (
                      <button class="btn btn-sm" type="button" onClick={() => quickAck(a.id)}>
                        Acknowledge
                      </button>
                    ) : null}{" "}
                    {a.status !== "RESOLVED" ? (
                      <button class="btn btn-sm" type="button" onClick={() => setPending({ kind: "resolve", ids: [a.id] })}>
                        Resolve
                      </button>
                    ) : null}{" "}
                    <button class="btn btn-sm" type="button" onClick={() => setPending({ kind: "note", ids: [a.id] })}>
                      Note
                    </button>
                  </td>
                </tr>
                {open === a.id ? (
                  <tr>
                    <td colSpan={8} style={{ padding: 0 }}>
                      <AlertDetail a={a} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
        {loaded && shown.length === 0 ? <div class="empty">No alert matches: nothing {[...statuses].map((s) => STATUS_LABEL[s]?.toLowerCase()).join(" or ") || "selected"} in the last {period.label}.</div> : null}
        {!loaded ? <div class="empty">Opening the alert stream…</div> : null}
      </div>
      {pending ? (
        <TextDialog
          title={pending.kind === "note" ? "Add a note" : pending.kind === "ack" ? `Acknowledge ${pending.ids.length} alert${pending.ids.length > 1 ? "s" : ""}` : `Resolve ${pending.ids.length} alert${pending.ids.length > 1 ? "s" : ""}`}
          label={pending.kind === "note" ? "Note" : "Comment (optional)"}
          confirm={pending.kind === "note" ? "Add note" : pending.kind === "ack" ? "Acknowledge" : "Resolve"}
          required={pending.kind === "note"}
          onSubmit={(t) => act(pending.kind, pending.ids, t)}
          onClose={() => setPending(undefined)}
        />
      ) : null}
    </>
  );
}
