import { useMemo, useState } from "preact/hooks";
import { type Api, seg } from "../api.ts";
import { AvailabilityStrip } from "../components/availability-strip.tsx";
import { SeverityBadge } from "../components/badges.tsx";
import { Chart } from "../components/chart.tsx";
import { useConsole } from "../context.ts";
import { ago, count, dateTime, number } from "../format.ts";
import { errorText, useLoad, useNow } from "../hooks.ts";
import { href } from "../router.ts";
import { type Alert, type AlertEvent, triggerHistory, type Trigger } from "./alerts-model.ts";
import { NewTriggerForm } from "./trigger-form.tsx";
import { alignSeries, type MetricKind, readAvailability, readNumeric } from "./metrics-model.ts";

const isGroup = (t: Trigger) => t.type === "GROUP" || t.type === "DATA_DRIVEN_GROUP";

/** Turns a trigger on or off: groups through the group path (it carries the change to its members). */
async function setEnabled(api: Api, t: Trigger, enabled: boolean): Promise<void> {
  await api.put(isGroup(t) ? "svc/alerts/triggers/groups/enabled" : "svc/alerts/triggers/enabled", { triggerIds: t.id, enabled });
}

function EnabledSwitch({ t, onChanged }: { t: Trigger; onChanged: (t: Trigger) => void }) {
  const { api } = useConsole();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const toggle = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await setEnabled(api, t, !t.enabled);
      onChanged({ ...t, enabled: !t.enabled });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span style={{ display: "inline-flex", alignItems: "center", gap: "8px" }}>
      <button type="button" class="switch" role="switch" aria-checked={!!t.enabled} aria-label={`${t.enabled ? "Disable" : "Enable"} trigger ${t.name ?? t.id}`} disabled={busy} onClick={toggle} />
      <span class="small muted">{t.enabled ? "Enabled" : "Disabled"}</span>
      {error ? <span class="small bad">{error}</span> : null}
    </span>
  );
}

/** Every trigger of the tenant, with its open alerts, enabled or disabled from here. */
export function TriggersList() {
  const { api, tenant } = useConsole();
  const [text, setText] = useState("");
  const [changed, setChanged] = useState<Map<string, Trigger>>(new Map());
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState(0);
  const { data, error, loading } = useLoad(
    async (signal) => {
      const [triggers, open] = await Promise.all([
        api.list<Trigger>("svc/alerts/triggers", undefined, signal),
        api.list<Alert>("svc/alerts", { statuses: "OPEN,ACKNOWLEDGED", thin: true }, signal),
      ]);
      const openBy = new Map<string, number>();
      for (const a of open) if (a.trigger) openBy.set(a.trigger.id, (openBy.get(a.trigger.id) ?? 0) + 1);
      return { triggers, openBy };
    },
    [tenant, created],
  );
  const shown = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return (data?.triggers ?? [])
      .map((t) => changed.get(t.id) ?? t)
      .filter((t) => !needle || `${t.id} ${t.name ?? ""} ${t.description ?? ""}`.toLowerCase().includes(needle));
  }, [data, text, changed]);

  return (
    <>
      <div class="toolbar">
        <label class="sr-only" for="trigger-filter">
          Filter triggers
        </label>
        <input id="trigger-filter" class="input" type="search" placeholder="Filter by id, name or description" value={text} onInput={(e) => setText(e.currentTarget.value)} style={{ width: "300px" }} />
        <span class="grow" />
        <span class="muted small">{data ? `${count(shown.length)} of ${count(data.triggers.length)} triggers` : ""}</span>
        {creating ? null : (
          <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
            New trigger
          </button>
        )}
      </div>
      {creating ? (
        <NewTriggerForm
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            setCreated((n) => n + 1);
          }}
        />
      ) : null}
      {error ? <div class="banner error">Could not read the triggers: {error}</div> : null}
      <div class="table-wrap">
        <table class="data" aria-label="Triggers">
          <thead>
            <tr>
              <th scope="col">
                <span>Enabled</span>
              </th>
              <th scope="col">
                <span>Trigger</span>
              </th>
              <th scope="col">
                <span>Severity</span>
              </th>
              <th scope="col">
                <span>Type</span>
              </th>
              <th scope="col" class="num">
                <span>Unresolved alerts</span>
              </th>
              <th scope="col">
                <span>History</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.id} data-trigger={t.id}>
                <td>
                  <EnabledSwitch t={t} onChanged={(n) => setChanged((m) => new Map(m).set(n.id, n))} />
                </td>
                <td>
                  <a class="cell-main" href={href(["alerts", "triggers", t.id])}>
                    {t.name ?? t.id}
                  </a>
                  <div class="cell-sub mono">{t.id}</div>
                  {t.description ? <div class="cell-sub">{t.description}</div> : null}
                </td>
                <td>
                  <SeverityBadge severity={t.severity} />
                </td>
                <td class="small">{(t.type ?? "STANDARD").toLowerCase().replace(/_/g, " ")}</td>
                <td class="num">{data?.openBy.get(t.id) ? <span class="bad strong">{count(data.openBy.get(t.id))}</span> : <span class="faint">0</span>}</td>
                <td>
                  <a href={href(["alerts", "triggers", t.id])}>History</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!loading && data && shown.length === 0 ? <div class="empty">{data.triggers.length ? "No trigger matches the filter." : `No trigger is defined for ${tenant}.`}</div> : null}
        {loading && !data ? <div class="empty">Loading triggers…</div> : null}
      </div>
    </>
  );
}

interface FullTrigger {
  trigger: Trigger;
  conditions?: { triggerMode?: string; type?: string; dataId?: string; displayString?: string; operator?: string; threshold?: number }[];
  dampenings?: { triggerMode?: string; type?: string; evalTrueSetting?: number; evalTotalSetting?: number; evalTimeSetting?: number }[];
}

const DAY = 86_400_000;

/** The data a condition watches over the last day, when it is a metric of this tenant. */
async function watchedData(api: Api, dataId: string, signal: AbortSignal) {
  const range: [number, number] = [Date.now() - DAY, Date.now()];
  for (const type of ["gauge", "counter", "availability"] as MetricKind[]) {
    const path = { gauge: "gauges", counter: "counters", availability: "availability" }[type as "gauge"];
    const def = await api.get(`svc/metrics/${path}/${seg(dataId)}`, undefined, signal);
    if (!def) continue;
    if (type === "availability") return { id: dataId, type, range, segments: await readAvailability(api, dataId, range, signal) };
    return { id: dataId, type, range, chart: alignSeries([type === "counter" ? `${dataId} (rate/s)` : dataId], [await readNumeric(api, { type, id: dataId }, range, signal)]) };
  }
  return undefined;
}

/** One trigger: its definition, the data it watches, and everything that happened to its alerts. */
export function TriggerHistory({ id }: { id: string }) {
  const { api, tenant } = useConsole();
  const now = useNow(10_000);
  const [override, setOverride] = useState<Trigger>();
  const { data, error } = useLoad(
    async (signal) => {
      const full = await api.get<FullTrigger>(`svc/alerts/triggers/trigger/${seg(id)}`, undefined, signal);
      const [alerts, events] = await Promise.all([
        api.list<Alert>("svc/alerts", { triggerIds: id, statuses: "OPEN,ACKNOWLEDGED,RESOLVED", per_page: 500 }, signal),
        api.list<AlertEvent>("svc/alerts/events", { triggerIds: id, per_page: 500 }, signal),
      ]);
      const dataId = full?.conditions?.[0]?.dataId;
      const watched = dataId ? await watchedData(api, dataId, signal).catch(() => undefined) : undefined;
      return { full, alerts, events, watched };
    },
    [tenant, id],
  );
  const history = useMemo(() => (data ? triggerHistory(data.alerts, data.events) : []), [data]);
  const t = override ?? data?.full?.trigger;

  return (
    <>
      <p>
        <a href={href(["alerts", "triggers"])}>← All triggers</a>
      </p>
      {error ? <div class="banner error">Could not read trigger {id}: {error}</div> : null}
      {t ? (
        <section class="card card-body" style={{ marginBottom: "16px" }}>
          <div class="toolbar" style={{ marginBottom: "6px" }}>
            <h2 style={{ margin: 0, fontSize: "17px" }}>{t.name ?? t.id}</h2>
            <SeverityBadge severity={t.severity} />
            <span class="grow" />
            <EnabledSwitch t={t} onChanged={setOverride} />
          </div>
          <dl class="props">
            <dt>Id</dt>
            <dd class="mono">{t.id}</dd>
            {t.description ? (
              <>
                <dt>Description</dt>
                <dd>{t.description}</dd>
              </>
            ) : null}
            <dt>Conditions</dt>
            <dd>
              {(data?.full?.conditions ?? []).map((c) => (
                <div class="mono" key={`${c.triggerMode}${c.displayString}`}>
                  {c.triggerMode === "AUTORESOLVE" ? "resolves when: " : ""}
                  {c.displayString ?? `${c.type} ${c.dataId ?? ""}`}
                </div>
              ))}
            </dd>
            {data?.full?.dampenings?.length ? (
              <>
                <dt>Dampening</dt>
                <dd>
                  {data.full.dampenings.map((d) => (
                    <div key={`${d.triggerMode}${d.type}`}>
                      {d.type?.toLowerCase().replace(/_/g, " ")} ({d.evalTrueSetting ?? 0} of {d.evalTotalSetting ?? 0}
                      {d.evalTimeSetting ? ` within ${d.evalTimeSetting} ms` : ""})
                    </div>
                  ))}
                </dd>
              </>
            ) : null}
            <dt>Behaviour</dt>
            <dd>
              {[t.autoResolve ? "resolves its alerts by itself" : "alerts stay until resolved", t.autoDisable ? "disables itself after firing" : undefined].filter(Boolean).join("; ")}
            </dd>
          </dl>
        </section>
      ) : null}
      {data?.watched?.chart ? (
        <section class="card chart-card">
          <div class="chart-title">
            <h2>Watched data, last 24 h</h2>
            <span class="small muted">dashed: threshold · vertical lines: alerts fired</span>
          </div>
          <Chart
            data={data.watched.chart}
            range={data.watched.range}
            format={number}
            label="The data this trigger watches, its thresholds and when it fired"
            spanGaps
            thresholds={(data.full?.conditions ?? []).filter((c) => c.dataId === data.watched?.id && typeof c.threshold === "number").map((c) => c.threshold!)}
            markers={data.alerts.map((a) => a.ctime)}
          />
        </section>
      ) : null}
      {data?.watched?.segments ? (
        <section class="card chart-card">
          <div class="chart-title">
            <h2>Watched availability, last 24 h</h2>
          </div>
          <AvailabilityStrip segments={data.watched.segments} range={data.watched.range} label={data.full?.conditions?.[0]?.dataId ?? ""} />
        </section>
      ) : null}
      <section class="card card-body">
        <h2>
          History <span class="muted small">({count(data?.alerts.length ?? 0)} alerts, {count(data?.events.length ?? 0)} events)</span>
        </h2>
        {data && history.length === 0 ? <p class="muted">Nothing has happened to this trigger yet.</p> : null}
        <ul class="timeline" aria-label="Trigger history">
          {history.map((h) => (
            <li key={`${h.at}${h.kind}${h.alertId ?? ""}${h.detail ?? ""}`}>
              <span class="muted" title={dateTime(h.at)}>
                {dateTime(h.at)}
                <div class="cell-sub">{ago(h.at, now)}</div>
              </span>
              <span class={h.kind === "fired" ? "bad strong" : h.kind === "resolved" ? "strong" : "strong"}>
                {h.what}
                {h.who ? <div class="cell-sub">by {h.who}</div> : null}
              </span>
              <span class="mono small">{h.detail ?? ""}</span>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
