import { memo } from "preact/compat";
import { Segmented } from "../components/segmented.tsx";
import { useMemo, useRef, useState } from "preact/hooks";
import { PresenceBadge } from "../components/badges.tsx";
import { nextSort, SortHeader } from "../components/sort-header.tsx";
import { Sparkline } from "../components/sparkline.tsx";
import { useWindowedRows } from "../components/windowed.ts";
import type { Api } from "../api.ts";
import { useConsole } from "../context.ts";
import { prefetch, takePrefetched } from "../prefetch.ts";
import { ago, count, dateTime, duration, number } from "../format.ts";
import { usePolling, useNow } from "../hooks.ts";
import { href, navigate, type Route } from "../router.ts";
import { ConflictsPanel } from "./fleet-conflicts.tsx";
import { configCell, type FeedSummary, type FleetSortKey, filterFeeds, fleetTotals, shortId, sortFeeds, type StatusFilter, stateOf, toneClass } from "./fleet-model.ts";
import { FleetTabs, UpgradeCell, useFeedUpgrades } from "./fleet-upgrades.tsx";
import type { FeedUpgrade } from "./rollouts-model.ts";

/** How often the fleet is read again: about the agents' default collection tick. */
export const FLEET_REFRESH_MS = 5000;
/** The sparkline: an hour of CPU in 30 buckets of 2 minutes. */
const FLEET_QUERY = { cpuRange: "1h", cpuBuckets: 30 };

/** Asks for a tenant's fleet ahead of its view (see prefetch.ts). */
export function prefetchFleet(api: Api, tenant: string): void {
  prefetch(`fleet:${tenant}`, () => api.list<FeedSummary>("svc/fleet/feeds", FLEET_QUERY, undefined, tenant));
}
/** Every row has this height (CSS `.fleet-row`), so only the rows on screen need rendering. */
const ROW_HEIGHT = 48;
/** Data older than this (while online) is shown as late. */
const LATE_MS = 2 * 60_000;

const STATUS_FILTERS: { id: StatusFilter; label: string }[] = [
  { id: "all", label: "All" },
  { id: "up", label: "Online" },
  { id: "down", label: "Offline" },
  { id: "unknown", label: "Unknown" },
];

const FeedRow = memo(function FeedRow({ f, now, index, upgrade }: { f: FeedSummary; now: number; index: number; upgrade?: FeedUpgrade }) {
  const state = stateOf(f);
  const late = state === "up" && f.lastData !== undefined && now - f.lastData > LATE_MS;
  const oldest = f.buffer?.oldest;
  const cpuId = `${f.feed}:cpu_usage_percent:total`;
  const config = configCell(f.config);
  const tags = Object.entries(f.identity?.tags ?? {}).map(([k, v]) => `${k}=${v}`);
  return (
    <tr class={state === "down" ? "fleet-row offline" : "fleet-row"} data-feed={f.feed} aria-rowindex={index + 2}>
      <td>
        <PresenceBadge state={state} />
      </td>
      <td>
        <a class="cell-main" href={href(["inventory", f.feed])}>
          {f.feed}
        </a>
        {f.name && f.name !== f.feed ? <div class="cell-sub">{f.name}</div> : null}
      </td>
      <td class="nowrap" title={dateTime(f.presence?.since)}>
        {f.presence ? ago(f.presence.since, now) : <span class="faint">—</span>}
      </td>
      <td class={`nowrap${late ? " warn" : ""}`} title={dateTime(f.lastData)}>
        {ago(f.lastData, now)}
      </td>
      <td class="nowrap">{upgrade?.version ?? f.agentVersion ?? <span class="faint">—</span>}</td>
      <td class="nowrap">
        <UpgradeCell u={upgrade} />
      </td>
      <td title={f.identity ? `identity ${f.identity.instance}${f.identity.host ? ` on ${f.identity.host}` : ""}, holds the feed since ${dateTime(f.identity.since)}${tags.length ? `; tags ${tags.join(", ")}` : ""}` : "no identity reported (an agent older than identities)"}>
        {f.identity ? <span class="mono">{shortId(f.identity.instance)}</span> : <span class="faint">—</span>}
        {f.conflicts?.length ? <span class="badge crit conflict-mark">{f.conflicts.length} conflict{f.conflicts.length > 1 ? "s" : ""}</span> : null}
        {tags.length ? <div class="cell-sub nowrap">{tags.join(" ")}</div> : null}
      </td>
      <td class="nowrap" title={config.title}>
        <a class={toneClass(config.tone)} href={href(["fleet", "config"], { feed: f.feed })}>
          {config.text}
        </a>
      </td>
      <td class="num" title={f.buffer ? `as reported ${dateTime(f.buffer.at)}` : undefined}>
        {f.buffer ? <span class={f.buffer.points > 0 ? "strong" : "muted"}>{count(f.buffer.points)}</span> : <span class="faint">—</span>}
      </td>
      <td class="num" title={oldest !== undefined ? dateTime(oldest) : undefined}>
        {oldest !== undefined ? duration(now - oldest) : <span class="faint">—</span>}
      </td>
      <td class="num" title={f.drops ? `since the agent started: ${count(f.drops.size)} buffer full, ${count(f.drops.age)} too old, ${count(f.drops.rejected)} refused` : undefined}>
        {f.drops ? <span class={f.drops.total > 0 ? "bad strong" : "muted"}>{count(f.drops.total)}</span> : <span class="faint">—</span>}
      </td>
      <td>
        {f.cpu ? (
          <a class="spark" href={href(["metrics"], { m: `gauge:${cpuId}`, range: "1h" })} title="CPU use of all cores, last hour: open the chart">
            <Sparkline values={f.cpu.values} max={100} label={`CPU of ${f.feed} over the last hour`} />
            <span class="value">{f.cpu.last === undefined ? "—" : `${number(f.cpu.last)} %`}</span>
          </a>
        ) : (
          <span class="faint">—</span>
        )}
      </td>
    </tr>
  );
});

/** The fleet: every feed of the tenant with its presence, data and buffer, read again every few seconds. */
export function FleetPage({ route }: { route: Route }) {
  const { api, tenant, agentCommand } = useConsole();
  const [feeds, setFeeds] = useState<FeedSummary[]>();
  const [turn, setTurn] = useState(0);
  const [updated, setUpdated] = useState<number>();
  const text = route.query.get("q") ?? "";
  const status = (route.query.get("status") ?? "all") as StatusFilter;
  const [sort, setSort] = useState<{ key: FleetSortKey; dir: "asc" | "desc" }>({ key: "status", dir: "asc" });
  const now = useNow(5000);
  const body = useRef<HTMLTableSectionElement>(null);
  const upgrades = useFeedUpgrades();

  const error = usePolling(
    async (signal) => {
      const list = (await takePrefetched<FeedSummary[]>(`fleet:${tenant}`)) ?? (await api.list<FeedSummary>("svc/fleet/feeds", FLEET_QUERY, signal));
      setFeeds(list);
      setUpdated(Date.now());
    },
    FLEET_REFRESH_MS,
    [tenant, turn],
  );

  const setFilter = (q: string, s: StatusFilter) => navigate(href(["fleet"], { q, status: s === "all" ? undefined : s }), true);
  const shown = useMemo(() => (feeds ? sortFeeds(filterFeeds(feeds, text, status), sort) : []), [feeds, text, status, sort]);
  const totals = useMemo(() => fleetTotals(feeds ?? []), [feeds]);
  const onSort = (key: FleetSortKey) => setSort((s) => nextSort(s, key, key === "feed" || key === "status" || key === "version" || key === "config" ? "asc" : "desc"));
  const { start, end } = useWindowedRows(shown.length, ROW_HEIGHT, body);
  const stale = updated !== undefined && now - updated > 3 * FLEET_REFRESH_MS;

  return (
    <>
      <div class="page-head">
        <h1>Fleet</h1>
        <span class="sub">every feed of {tenant}</span>
        <span class="grow" />
        <a class="btn" href={href(["fleet", "config"])}>
          Remote configuration
        </a>
        <span class={`live${stale || error ? " stale" : ""}`} aria-live="polite">
          <span class="dot" aria-hidden="true" />
          {updated === undefined ? "Loading…" : `Live · updated ${ago(updated, now)}`}
        </span>
      </div>
      <FleetTabs on="feeds" />
      {error ? <div class="banner error">Could not read the fleet: {error}</div> : null}
      <div class="kpis">
        <div class="card kpi">
          <div class="kpi-label">Feeds</div>
          <div class="kpi-value">{count(totals.feeds)}</div>
        </div>
        <div class="card kpi good">
          <div class="kpi-label">Online</div>
          <div class="kpi-value">{count(totals.up)}</div>
        </div>
        <div class={`card kpi${totals.down > 0 ? " bad" : ""}`}>
          <div class="kpi-label">Offline</div>
          <div class="kpi-value">{count(totals.down)}</div>
        </div>
        <div class="card kpi">
          <div class="kpi-label">Points buffered on agents</div>
          <div class="kpi-value">{count(totals.buffered)}</div>
        </div>
        <div class={`card kpi${totals.drops > 0 ? " bad" : ""}`}>
          <div class="kpi-label">Points dropped</div>
          <div class="kpi-value">{count(totals.drops)}</div>
        </div>
        {totals.conflicts > 0 || totals.configFailed > 0 ? (
          <div class={`card kpi${totals.conflicts + totals.configFailed > 0 ? " bad" : ""}`}>
            <div class="kpi-label">Conflicts · configs refused</div>
            <div class="kpi-value">
              {count(totals.conflicts)} · {count(totals.configFailed)}
            </div>
          </div>
        ) : null}
      </div>
      {feeds ? <ConflictsPanel feeds={feeds} now={now} changed={() => setTurn((t) => t + 1)} /> : null}
      <div class="toolbar">
        <label class="sr-only" for="fleet-filter">
          Filter feeds
        </label>
        <input
          id="fleet-filter"
          class="input"
          type="search"
          placeholder="Filter by feed, host, version, identity or tag"
          value={text}
          onInput={(e) => setFilter(e.currentTarget.value, status)}
          style={{ width: "280px" }}
        />
        <Segmented label="Show feeds by status" options={STATUS_FILTERS} isOn={(s) => status === s} onPick={(s) => setFilter(text, s)} />
        <span class="grow" />
        <span class="muted small">
          {feeds ? `${count(shown.length)} of ${count(feeds.length)} feeds` : ""}
        </span>
      </div>
      <div class="table-wrap">
        {/* Wider than a laptop's screen with the fleet columns: the feed column keeps 200px and the table scrolls sideways. */}
        <table class="data fixed" style={{ minWidth: "1640px" }} aria-label="Feeds" aria-busy={feeds === undefined} aria-rowcount={shown.length + 1}>
          {/* Fixed widths: columns do not move as rows scroll in and out. */}
          <colgroup>
            <col style={{ width: "116px" }} />
            <col />
            <col style={{ width: "144px" }} />
            <col style={{ width: "144px" }} />
            <col style={{ width: "92px" }} />
            <col style={{ width: "168px" }} />
            <col style={{ width: "128px" }} />
            <col style={{ width: "120px" }} />
            <col style={{ width: "104px" }} />
            <col style={{ width: "136px" }} />
            <col style={{ width: "84px" }} />
            <col style={{ width: "200px" }} />
          </colgroup>
          <thead>
            <tr>
              <SortHeader id="status" sort={sort} onSort={onSort}>
                Status
              </SortHeader>
              <SortHeader id="feed" sort={sort} onSort={onSort}>
                Feed
              </SortHeader>
              <SortHeader id="since" sort={sort} onSort={onSort}>
                Since
              </SortHeader>
              <SortHeader id="lastData" sort={sort} onSort={onSort}>
                Last data
              </SortHeader>
              <SortHeader id="version" sort={sort} onSort={onSort}>
                Agent
              </SortHeader>
              <th scope="col">Upgrade</th>
              <th scope="col">Identity</th>
              <SortHeader id="config" sort={sort} onSort={onSort}>
                Config
              </SortHeader>
              <SortHeader id="buffer" sort={sort} onSort={onSort} numeric>
                Buffered
              </SortHeader>
              <SortHeader id="oldest" sort={sort} onSort={onSort} numeric>
                Oldest buffered
              </SortHeader>
              <SortHeader id="drops" sort={sort} onSort={onSort} numeric>
                Drops
              </SortHeader>
              <SortHeader id="cpu" sort={sort} onSort={onSort}>
                CPU, last hour
              </SortHeader>
            </tr>
          </thead>
          <tbody ref={body}>
            {start > 0 ? (
              <tr class="spacer">
                <td colSpan={12} style={{ height: `${start * ROW_HEIGHT}px` }} />
              </tr>
            ) : null}
            {shown.slice(start, end).map((f, i) => (
              <FeedRow key={f.feed} f={f} now={now} index={start + i} upgrade={upgrades.get(f.feed)} />
            ))}
            {end < shown.length ? (
              <tr class="spacer">
                <td colSpan={12} style={{ height: `${(shown.length - end) * ROW_HEIGHT}px` }} />
              </tr>
            ) : null}
          </tbody>
        </table>
        {feeds !== undefined && shown.length === 0 ? (
          <div class="empty">
            {feeds.length > 0 ? (
              "No feed matches the filter."
            ) : agentCommand ? (
              <>
                No feed has reported to this tenant yet. Start an agent: <code class="command">{`${agentCommand} --tenant ${tenant}`}</code>
              </>
            ) : (
              `No feed has reported to this tenant yet. Start an agent with --tenant ${tenant}.`
            )}
          </div>
        ) : null}
        {feeds === undefined && !error ? <div class="empty">Loading the fleet…</div> : null}
      </div>
      <p class="footer-note">
        Presence comes from each agent's connection (online/offline, and since when); buffer, oldest buffered point and drops are what the agent last reported about
        itself; drops count since the agent started. Identity is the agent that holds the feed (the first to claim it); Config is the remote configuration revision it
        runs, or “local” (docs/fleet.md).
      </p>
    </>
  );
}
