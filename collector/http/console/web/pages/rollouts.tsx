import { useState } from "preact/hooks";
import { useConsole } from "../context.ts";
import { ago, dateTime } from "../format.ts";
import { errorText, useLoad, useNow, usePolling } from "../hooks.ts";
import { href, navigate, type Route } from "../router.ts";
import { FleetTabs } from "./fleet-upgrades.tsx";
import { batchProgress, DEFAULT_ROLLOUT_FORM, progressText, type Release, type Rollout, type RolloutForm, rolloutRequest, selectorText, type TargetState } from "./rollouts-model.ts";

const REFRESH_MS = 3000;
const STATE_TONE: Record<Rollout["state"], string> = { running: "info", paused: "warn", completed: "ok" };
const TARGET_TONE: Record<TargetState, string> = { pending: "", ordered: "info", succeeded: "ok", failed: "crit" };

function NewRolloutForm({ onCreated, onCancel }: { onCreated: (id: string) => void; onCancel: () => void }) {
  const { api } = useConsole();
  const [f, setF] = useState<RolloutForm>(DEFAULT_ROLLOUT_FORM);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const { data: releases } = useLoad((signal) => api.list<Release>("svc/fleet/releases", undefined, signal, ""), []);
  const set = (patch: Partial<RolloutForm>) => setF((old) => ({ ...old, ...patch }));
  const submit = async (e: Event) => {
    e.preventDefault();
    const req = rolloutRequest(f);
    if ("problem" in req) return setError(req.problem);
    setBusy(true);
    setError(undefined);
    try {
      const r = await api.post<Rollout>("svc/fleet/rollouts", req.body);
      onCreated(r!.id);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <form class="card card-body" onSubmit={submit} aria-label="New rollout">
      <h2>New rollout</h2>
      <div class="form-row">
        <div class="field">
          <label for="rollout-version">Version</label>
          <select id="rollout-version" class="select" value={f.version} onChange={(e) => set({ version: e.currentTarget.value })}>
            <option value="">{releases?.length === 0 ? "No release uploaded" : "Choose…"}</option>
            {(releases ?? []).map((r) => (
              <option key={r.version} value={r.version}>
                {r.version} ({r.binaries.map((b) => b.arch).join(", ")})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="rollout-tags">Feeds with the tags</label>
          <input id="rollout-tags" class="input" value={f.tags} onInput={(e) => set({ tags: e.currentTarget.value })} placeholder="site=paris, role=edge" />
        </div>
        <div class="field">
          <label for="rollout-feeds">or these feeds</label>
          <input id="rollout-feeds" class="input" value={f.feeds} onInput={(e) => set({ feeds: e.currentTarget.value })} placeholder="every feed when both are empty" />
        </div>
      </div>
      <div class="form-row">
        <div class="field">
          <label for="rollout-canary">Canary feeds</label>
          <input id="rollout-canary" class="input" type="number" min={1} value={String(f.canary)} onInput={(e) => set({ canary: e.currentTarget.valueAsNumber })} style={{ width: "100px" }} />
        </div>
        <div class="field">
          <label for="rollout-batches">Then batches up to (%)</label>
          <input id="rollout-batches" class="input" value={f.batches} onInput={(e) => set({ batches: e.currentTarget.value })} placeholder="25, 50, 100" />
        </div>
        <div class="field">
          <label for="rollout-deadline">Each new version must prove itself within</label>
          <input id="rollout-deadline" class="input" value={f.deadline} onInput={(e) => set({ deadline: e.currentTarget.value })} placeholder="2mn" style={{ width: "100px" }} />
        </div>
        <label class="radio">
          <input type="checkbox" checked={f.force} onChange={(e) => set({ force: e.currentTarget.checked })} />
          Allow a downgrade
        </label>
      </div>
      <p class="small muted">The canary goes first; each batch starts once the one before has upgraded; the first failure pauses the rollout.</p>
      {error ? <div class="banner error">{error}</div> : null}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          Start rollout
        </button>
      </div>
    </form>
  );
}

/** One rollout: its batches with their feeds, and pause or resume. */
function RolloutDetail({ id }: { id: string }) {
  const { api, tenant } = useConsole();
  const [r, setR] = useState<Rollout>();
  const [actionError, setActionError] = useState<string>();
  const now = useNow(5000);
  const error = usePolling(async (signal) => setR(await api.get<Rollout>(`svc/fleet/rollouts/${encodeURIComponent(id)}`, undefined, signal)), REFRESH_MS, [tenant, id]);
  const act = async (what: "pause" | "resume") => {
    setActionError(undefined);
    try {
      setR(await api.post<Rollout>(`svc/fleet/rollouts/${encodeURIComponent(id)}/${what}`));
    } catch (e) {
      setActionError(errorText(e));
    }
  };
  if (!r) return error ? <div class="banner error">Could not read rollout {id}: {error}</div> : <div class="empty">Loading…</div>;
  return (
    <section aria-label={`Rollout ${r.id}`}>
      <div class="toolbar">
        <a href={href(["fleet", "rollouts"])}>← Rollouts</a>
        <h2 style={{ margin: 0 }}>
          {r.version} to {selectorText(r.selector)}
        </h2>
        <span class={`badge ${STATE_TONE[r.state]}`} data-testid="rollout-state">
          {r.state}
        </span>
        <span class="grow" />
        {r.state === "running" ? (
          <button type="button" class="btn" onClick={() => act("pause")}>
            Pause
          </button>
        ) : r.state === "paused" ? (
          <button type="button" class="btn btn-primary" onClick={() => act("resume")}>
            Resume
          </button>
        ) : null}
      </div>
      {r.reason ? <div class={`banner ${r.state === "paused" ? "error" : ""}`}>Paused: {r.reason}</div> : null}
      {actionError ? <div class="banner error">{actionError}</div> : null}
      <p class="muted small">
        {progressText(r)} · started {ago(r.createdAt, now)} by {r.createdBy} · each new version proves itself within {r.deadlineMs / 1000} s{r.force ? " · downgrade allowed" : ""}
      </p>
      {batchProgress(r).map((b) => (
        <div key={b.batch} class="card card-body" data-batch={b.batch} style={{ marginBottom: "12px" }}>
          <div class="toolbar">
            <strong>{b.label}</strong>
            <span class="muted small">{b.upTo}</span>
            <span class={`badge ${b.phase === "done" ? "ok" : b.phase === "stopped" ? "crit" : b.phase === "under way" ? "info" : ""}`}>{b.phase}</span>
            <span class="grow" />
            <span class="small muted">
              {b.counts.succeeded} upgraded · {b.counts.ordered} under way · {b.counts.failed} failed · {b.counts.pending} waiting
            </span>
          </div>
          <table class="data" aria-label={`${b.label} feeds`}>
            <tbody>
              {b.targets.map((t) => (
                <tr key={t.feed} data-feed={t.feed}>
                  <td>
                    <a href={href(["inventory", t.feed])}>{t.feed}</a>
                  </td>
                  <td class="nowrap">{t.from ? `from ${t.from}` : ""}</td>
                  <td>
                    <span class={`badge ${TARGET_TONE[t.state]}`}>{t.state}</span>
                  </td>
                  <td class="small">{t.reason ?? ""}</td>
                  <td class="nowrap small muted" title={dateTime(t.at)}>
                    {t.at ? ago(t.at, now) : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}

function RolloutList() {
  const { api, tenant } = useConsole();
  const [list, setList] = useState<Rollout[]>();
  const [creating, setCreating] = useState(false);
  const now = useNow(5000);
  const error = usePolling(async (signal) => setList(await api.list<Rollout>("svc/fleet/rollouts", undefined, signal)), REFRESH_MS, [tenant]);
  const shown = [...(list ?? [])].reverse();
  return (
    <>
      <div class="toolbar">
        <span class="muted small">Signed agent releases, rolled out canary first (docs/fleet.md).</span>
        <span class="grow" />
        {creating ? null : (
          <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
            New rollout
          </button>
        )}
      </div>
      {creating ? <NewRolloutForm onCreated={(id) => navigate(href(["fleet", "rollouts", id]))} onCancel={() => setCreating(false)} /> : null}
      {error ? <div class="banner error">Could not read the rollouts: {error}</div> : null}
      <div class="table-wrap">
        <table class="data" aria-label="Rollouts" aria-busy={list === undefined}>
          <thead>
            <tr>
              <th>Version</th>
              <th>Feeds</th>
              <th>State</th>
              <th>Progress</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.id} data-rollout={r.id}>
                <td>
                  <a class="cell-main" href={href(["fleet", "rollouts", r.id])}>
                    {r.version}
                  </a>
                  <div class="cell-sub">{r.id}</div>
                </td>
                <td>{selectorText(r.selector)}</td>
                <td>
                  <span class={`badge ${STATE_TONE[r.state]}`} title={r.reason}>
                    {r.state}
                  </span>
                </td>
                <td>{progressText(r)}</td>
                <td class="nowrap" title={dateTime(r.createdAt)}>
                  {ago(r.createdAt, now)} by {r.createdBy}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {list !== undefined && list.length === 0 ? <div class="empty">No rollout yet in this tenant.</div> : null}
      </div>
    </>
  );
}

/** `#/fleet/rollouts` and `#/fleet/rollouts/<id>`: the tenant's rollouts of agent releases. */
export function RolloutsPage({ route }: { route: Route }) {
  const { tenant } = useConsole();
  const id = route.path[2];
  return (
    <>
      <div class="page-head">
        <h1>Fleet</h1>
        <span class="sub">rollouts of agent releases in {tenant}</span>
      </div>
      <FleetTabs on="rollouts" />
      {id ? <RolloutDetail id={id} /> : <RolloutList />}
    </>
  );
}
