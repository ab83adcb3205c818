import { Fragment } from "preact";
import { Segmented } from "../components/segmented.tsx";
import { useEffect, useMemo, useState } from "preact/hooks";
import { AvailabilityStrip, type AvailabilitySegment } from "../components/availability-strip.tsx";
import { Chart, type ChartData } from "../components/chart.tsx";
import { ResourceTree } from "../components/tree.tsx";
import { useConsole } from "../context.ts";
import { withUnit } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { href, navigate, type Route } from "../router.ts";
import { ancestors, buildTree, type Entity, findNode, metricKind, type ResourceNode } from "./inventory-model.ts";
import { alignSeries, RANGES, readAvailability, readNumeric, refText, resolveRange } from "./metrics-model.ts";

/** Charts drawn at once for a resource; more on request (a host has dozens of metrics). */
const FIRST_CHARTS = 12;

/** Percent-encodes an id as the inventory's path segments want it. */
const pathId = (id: string) => encodeURIComponent(id).replace(/;/g, "%3B");

function FeedList({ feeds, current }: { feeds: Entity[]; current: string | undefined }) {
  const [text, setText] = useState("");
  const needle = text.trim().toLowerCase();
  const shown = feeds.filter((f) => !needle || `${f.id} ${f.name ?? ""}`.toLowerCase().includes(needle));
  return (
    <section class="card pane" aria-label="Feeds">
      <label class="sr-only" for="feed-filter">
        Filter feeds
      </label>
      <input id="feed-filter" class="input" type="search" placeholder="Filter feeds" value={text} onInput={(e) => setText(e.currentTarget.value)} style={{ width: "100%", marginBottom: "8px" }} />
      <ul class="list short">
        {shown.map((f) => (
          <li key={f.id}>
            <a class="item" href={href(["inventory", f.id])} aria-current={f.id === current ? "true" : undefined}>
              <span>
                <span class="cell-main">{f.id}</span>
                {f.name && f.name !== f.id ? <div class="cell-sub">{f.name}</div> : null}
              </span>
            </a>
          </li>
        ))}
      </ul>
      {shown.length === 0 ? <p class="muted small">{feeds.length ? "No feed matches." : "No feed in the inventory yet."}</p> : null}
    </section>
  );
}

type MetricView = { m: Entity; chart?: ChartData; segments?: AvailabilitySegment[]; last?: number };

/** The selected resource: its properties, its metrics, and a chart of each. */
function ResourceDetail({ node, range, rangeId }: { node: ResourceNode; range: [number, number]; rangeId: string }) {
  const { api, tenant } = useConsole();
  const [all, setAll] = useState(false);
  const metrics = all ? node.metrics : node.metrics.slice(0, FIRST_CHARTS);
  const { data } = useLoad(
    async (signal) =>
      Promise.all(
        metrics.map(async (m): Promise<MetricView> => {
          const kind = metricKind(m);
          if (kind === "availability") return { m, segments: await readAvailability(api, m.id, range, signal) };
          if (kind === "string") return { m };
          const s = await readNumeric(api, { type: kind, id: m.id }, range, signal);
          const last = [...s.values].reverse().find((v) => v !== null) ?? undefined;
          return { m, chart: alignSeries([kind === "counter" ? "rate/s" : (m.name ?? m.id)], [s]), last };
        }),
      ),
    [tenant, node.entity.path, all, range[0], range[1]],
  );
  const props = Object.entries(node.entity.properties ?? {});
  return (
    <>
      <section class="card card-body" style={{ marginBottom: "16px" }}>
        <h2 style={{ fontSize: "17px" }}>
          {node.entity.name ?? node.entity.id} <span class="muted small">{node.entity.type?.name ?? ""}</span>
        </h2>
        <dl class="props">
          <dt>Path</dt>
          <dd class="mono">{node.entity.path}</dd>
          {props.map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
            </Fragment>
          ))}
        </dl>
        <div class="toolbar" style={{ marginBottom: 0 }}>
          <span class="strong">{node.metrics.length} metrics</span>
          {node.metrics.length ? (
            <a class="btn btn-sm" href={href(["metrics"], { range: rangeId }) + node.metrics.map((m) => `&m=${encodeURIComponent(refText({ type: metricKind(m), id: m.id }))}`).join("")}>
              Open all in Metrics
            </a>
          ) : null}
        </div>
      </section>
      <section class="chart-grid" aria-label={`Metrics of ${node.entity.name ?? node.entity.id}`}>
        {metrics.map((m, i) => {
          const v = data?.[i];
          const unit = m.type?.unit;
          const kind = metricKind(m);
          return (
            <section class="card chart-card" key={m.path} data-metric={m.id}>
              <div class="chart-title">
                <h2 class="mono" title={m.id}>
                  {m.name ?? m.id}
                </h2>
                <span class="small muted">{kind === "counter" ? "rate per second" : kind}</span>
                <span class="grow" />
                {v?.last !== undefined ? <span class="strong">{withUnit(v.last, kind === "counter" ? undefined : unit)}</span> : null}
              </div>
              {v?.chart ? (
                <Chart compact data={v.chart} range={range} height={150} format={(x) => withUnit(x, kind === "counter" ? undefined : unit)} label={`${m.id} over the range`} spanGaps={range[1] - range[0] <= 6 * 3_600_000} />
              ) : v?.segments ? (
                <AvailabilityStrip segments={v.segments} range={range} label={m.name ?? m.id} />
              ) : (
                <div class="chart muted small">{data ? (kind === "string" ? "Text values: open in Metrics." : "No data.") : "Loading…"}</div>
              )}
            </section>
          );
        })}
      </section>
      {!all && node.metrics.length > FIRST_CHARTS ? (
        <p>
          <button class="btn" type="button" onClick={() => setAll(true)}>
            Show all {node.metrics.length} charts
          </button>
        </p>
      ) : null}
      {node.metrics.length === 0 ? <div class="card empty">This resource has no metrics of its own; its children may.</div> : null}
    </>
  );
}

/** A feed's resources as a tree; the selected one with its metrics and their charts. */
export function InventoryPage({ route }: { route: Route }) {
  const { api, tenant } = useConsole();
  const feed = route.path[1];
  const rangeId = route.query.get("range") ?? "1h";
  const range = useMemo(() => resolveRange(new URLSearchParams({ range: rangeId }), Date.now()), [rangeId, route]);
  const feeds = useLoad((signal) => api.list<Entity>("svc/inventory/traversal/type=f", undefined, signal), [tenant]);
  const tree = useLoad(
    async (signal) => {
      if (!feed) return undefined;
      const feedPath = `/t;${pathId(tenant)}/f;${pathId(feed)}`;
      const entities = await api.list<Entity>(`svc/inventory/traversal/f;${pathId(feed)}/recursive;over=contains`, undefined, signal);
      return buildTree(feedPath, entities);
    },
    [tenant, feed],
  );
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const roots = tree.data ?? [];
  const selectedPath = route.query.get("r") ?? roots[0]?.entity.path;
  const selected = selectedPath ? findNode(roots, selectedPath) : undefined;

  // The first resource (the host) and the way to the selected one start open.
  useEffect(() => {
    if (!roots.length) return;
    setExpanded((e) => new Set([...e, roots[0]!.entity.path, ...(selectedPath ? ancestors(selectedPath) : [])]));
  }, [tree.data]);

  const select = (path: string) => navigate(href(["inventory", feed ?? ""], { r: path, range: rangeId }), true);
  const toggle = (path: string, open: boolean) =>
    setExpanded((e) => {
      const next = new Set(e);
      if (open) next.add(path);
      else next.delete(path);
      return next;
    });

  // Without a feed chosen, open the first one.
  useEffect(() => {
    if (!feed && feeds.data?.length) navigate(href(["inventory", feeds.data[0]!.id]), true);
  }, [feed, feeds.data]);

  return (
    <>
      <div class="page-head">
        <h1>Inventory</h1>
        <span class="sub">{feed ? `feed ${feed}` : "the resources each feed reports"}</span>
        <span class="grow" />
        <Segmented label="Chart range" options={RANGES.slice(0, 5)} isOn={(r) => rangeId === r} onPick={(r) => navigate(href(["inventory", feed ?? ""], { r: selectedPath, range: r }), true)} />
      </div>
      {feeds.error ? <div class="banner error">Could not read the feeds: {feeds.error}</div> : null}
      <div class="split">
        <div>
          <FeedList feeds={feeds.data ?? []} current={feed} />
          {feed ? (
            <section class="card pane" style={{ marginTop: "16px" }} aria-label="Resources">
              <h2 class="label" style={{ margin: "0 0 8px" }}>
                Resources of {feed}
              </h2>
              {tree.error ? <div class="banner error">{tree.error}</div> : null}
              {tree.data && roots.length === 0 ? <p class="muted small">This feed has no resources in the inventory.</p> : null}
              <ResourceTree roots={roots} selected={selected?.entity.path} expanded={expanded} onSelect={select} onToggle={toggle} label={`Resources of ${feed}`} />
            </section>
          ) : null}
        </div>
        <div>
          {selected ? (
            <ResourceDetail key={selected.entity.path} node={selected} range={range} rangeId={rangeId} />
          ) : (
            <div class="card empty">{feed ? (tree.loading ? "Loading the inventory…" : "Pick a resource.") : "Pick a feed."}</div>
          )}
        </div>
      </div>
    </>
  );
}
