import { useEffect, useMemo, useState } from "preact/hooks";
import { Segmented } from "../components/segmented.tsx";
import { AvailabilityStrip, type AvailabilitySegment } from "../components/availability-strip.tsx";
import { Chart, type ChartData, PALETTE } from "../components/chart.tsx";
import { useConsole } from "../context.ts";
import { dateTime, duration, fromLocalInput, number, toLocalInput } from "../format.ts";
import { errorText, usePolling } from "../hooks.ts";
import { href, navigate, type Route } from "../router.ts";
import {
  alignSeries,
  bucketsOf,
  findMetrics,
  isBucketed,
  KINDS,
  type MetricDefinition,
  type MetricRef,
  parseRef,
  rangesWithin,
  readAvailability,
  readNumeric,
  readStrings,
  refText,
  resolveRange,
} from "./metrics-model.ts";

const SHOWN_RESULTS = 200;
const LIVE_REFRESH_MS = 30_000;

interface Loaded {
  range: [number, number];
  gauges?: ChartData;
  counters?: ChartData;
  availability: { id: string; segments: AvailabilitySegment[] }[];
  strings: { id: string; points: { timestamp: number; value: number | string }[] }[];
  ms: number;
}

/** The view's state lives in its URL, so that every chart is a link. */
function viewQuery(route: Route, change: Record<string, string | string[] | undefined>): string {
  const q = new URLSearchParams(route.query);
  for (const [k, v] of Object.entries(change)) {
    q.delete(k);
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else if (v !== undefined && v !== "") q.set(k, v);
  }
  const s = q.toString();
  return `#/metrics${s ? `?${s}` : ""}`;
}

function SearchPane({ route, selected, toggle }: { route: Route; selected: MetricRef[]; toggle: (m: MetricRef) => void }) {
  const { api, tenant } = useConsole();
  const [id, setId] = useState(route.query.get("id") ?? "");
  const [tags, setTags] = useState(route.query.get("tags") ?? "");
  const [type, setType] = useState(route.query.get("type") ?? "");
  const [results, setResults] = useState<MetricDefinition[]>();
  const [searchError, setSearchError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const search = async (e?: Event) => {
    e?.preventDefault();
    navigate(viewQuery(route, { id, tags, type }), true);
    setBusy(true);
    setSearchError(undefined);
    try {
      setResults(await findMetrics(api, id, tags, type));
    } catch (err) {
      setSearchError(errorText(err));
      setResults(undefined);
    } finally {
      setBusy(false);
    }
  };
  const { onSite } = useConsole();
  // A link with a search in it shows its results at once; on site, the agent's series are few: all of them.
  useEffect(() => {
    if (id || tags || onSite) void search();
  }, []);
  const isSelected = (d: MetricDefinition) => selected.some((m) => m.id === d.id && m.type === d.type);

  return (
    <section class="card pane" aria-label="Find metrics">
      <form onSubmit={search}>
        <div class="field">
          <label for="metric-id">Metric id contains (a regular expression)</label>
          <input id="metric-id" class="input" value={id} onInput={(e) => setId(e.currentTarget.value)} placeholder="e.g. web-1:cpu_usage_percent" autocomplete="off" />
        </div>
        <div class="field">
          <label for="metric-tags">Tags</label>
          <input id="metric-tags" class="input" value={tags} onInput={(e) => setTags(e.currentTarget.value)} placeholder="e.g. feed:web-1,metric:load1" autocomplete="off" />
        </div>
        <div class="toolbar">
          <label class="sr-only" for="metric-type">
            Type
          </label>
          <select id="metric-type" class="select" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All types</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          <span class="grow" />
          <button class="btn btn-primary" type="submit" disabled={busy}>
            {busy ? "Searching…" : "Search"}
          </button>
        </div>
      </form>
      {searchError ? <div class="banner error">{searchError}</div> : null}
      {results ? (
        <>
          <div class="small muted" style={{ margin: "4px 0 6px" }}>
            {results.length === 0 ? `No metric of ${tenant} matches.` : `${results.length} metrics${results.length > SHOWN_RESULTS ? `, the first ${SHOWN_RESULTS} shown: narrow the search` : ""}`}
          </div>
          <ul class="list" aria-label="Metrics found">
            {results.slice(0, SHOWN_RESULTS).map((d) => (
              <li key={refText(d)}>
                <label class="item">
                  <input type="checkbox" checked={isSelected(d)} onChange={() => toggle({ type: d.type, id: d.id })} />
                  <span class="item-text" title={d.id}>
                    <span class="item-id">{d.id}</span>
                    <span class="cell-sub">
                      {d.type}
                      {d.maxTimestamp ? ` · last point ${dateTime(d.maxTimestamp)}` : ""}
                    </span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p class="small muted">Search by id or tags, then tick metrics to chart them together. Counters are drawn as a rate per second.</p>
      )}
    </section>
  );
}

function RangePicker({ route, range, fixed }: { route: Route; range: [number, number]; fixed: boolean }) {
  const active = fixed ? undefined : (route.query.get("range") ?? "1h");
  const ranges = rangesWithin(useConsole().onSite?.windowMs);
  const [from, setFrom] = useState(toLocalInput(range[0]));
  const [to, setTo] = useState(toLocalInput(range[1]));
  const apply = (e: Event) => {
    e.preventDefault();
    const f = fromLocalInput(from);
    const t = fromLocalInput(to);
    if (f !== undefined && t !== undefined && t > f) navigate(viewQuery(route, { from: String(f), to: String(t), range: undefined }));
  };
  return (
    <div class="toolbar">
      <Segmented label="Time range" options={ranges} isOn={(r) => active === r} onPick={(r) => navigate(viewQuery(route, { range: r, from: undefined, to: undefined }))} />
      <form class="toolbar" style={{ margin: 0 }} onSubmit={apply}>
        <label class="sr-only" for="range-from">
          From
        </label>
        <input id="range-from" class="input" type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        <span class="muted">to</span>
        <label class="sr-only" for="range-to">
          To
        </label>
        <input id="range-to" class="input" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <button class="btn" type="submit">
          Apply
        </button>
      </form>
      {fixed ? (
        <button class="btn" type="button" onClick={() => navigate(viewQuery(route, { from: undefined, to: undefined }))}>
          Reset zoom
        </button>
      ) : null}
    </div>
  );
}

/** Search metrics, chart several together over a picked range; drag on a chart to zoom. */
export function MetricsPage({ route }: { route: Route }) {
  const { api, tenant } = useConsole();
  const refs = useMemo(() => route.query.getAll("m").map(parseRef).filter((m): m is MetricRef => m !== undefined), [route]);
  const fixed = route.query.has("from") && route.query.has("to");
  const rangeKey = `${route.query.get("range")}|${route.query.get("from")}|${route.query.get("to")}`;
  const [loaded, setLoaded] = useState<Loaded>();
  const refsKey = refs.map(refText).join("\n");

  const error = usePolling(
    async (signal) => {
      const started = performance.now();
      const range = resolveRange(route.query, Date.now());
      const numeric = (type: "gauge" | "counter") => refs.filter((m) => m.type === type);
      const chart = async (list: MetricRef[]) =>
        list.length === 0 ? undefined : alignSeries(list.map((m) => m.id), await Promise.all(list.map((m) => readNumeric(api, m, range, signal))));
      const [gauges, counters, availability, strings] = await Promise.all([
        chart(numeric("gauge")),
        chart(numeric("counter")),
        Promise.all(refs.filter((m) => m.type === "availability").map(async (m) => ({ id: m.id, segments: await readAvailability(api, m.id, range, signal) }))),
        Promise.all(refs.filter((m) => m.type === "string").map(async (m) => ({ id: m.id, points: await readStrings(api, m.id, range, signal) }))),
      ]);
      setLoaded({ range, gauges, counters, availability, strings, ms: performance.now() - started });
    },
    fixed ? 0 : LIVE_REFRESH_MS,
    [tenant, refsKey, rangeKey],
  );

  const toggle = (m: MetricRef) => {
    const text = refText(m);
    const list = refs.map(refText);
    navigate(viewQuery(route, { m: list.includes(text) ? list.filter((x) => x !== text) : [...list, text] }));
  };
  const zoom = (start: number, end: number) => navigate(viewQuery(route, { from: String(start), to: String(end), range: undefined }));
  const reset = () => navigate(viewQuery(route, { from: undefined, to: undefined }));
  const range = loaded?.range ?? resolveRange(route.query, Date.now());
  const bucketed = isBucketed(range);
  const colorOf = (m: MetricRef) => {
    const same = refs.filter((r) => r.type === m.type);
    return PALETTE[same.findIndex((r) => r.id === m.id) % PALETTE.length];
  };

  return (
    <>
      <div class="page-head">
        <h1>Metrics</h1>
        <span class="sub">
          {dateTime(range[0])} – {dateTime(range[1])} ({duration(range[1] - range[0])}
          {bucketed ? `, buckets of ${duration(bucketsOf(range).step)}` : ", raw points"})
        </span>
      </div>
      <div class="split">
        <SearchPane route={route} selected={refs} toggle={toggle} />
        <div>
          <RangePicker key={rangeKey} route={route} range={resolveRange(route.query, Date.now())} fixed={fixed} />
          {refs.length > 0 ? (
            <ul class="chips" aria-label="Metrics on the charts">
              {refs.map((m) => (
                <li class="chip" key={refText(m)}>
                  <span class="swatch" style={{ background: m.type === "availability" || m.type === "string" ? "var(--faint)" : colorOf(m) }} />
                  <span class="mono" title={refText(m)}>
                    {m.id}
                  </span>
                  <span class="faint small">{m.type === "counter" ? "rate/s" : m.type}</span>
                  <button class="chip-remove" type="button" aria-label={`Remove ${m.id}`} onClick={() => toggle(m)}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          {error ? <div class="banner error">Could not read the data: {error}</div> : null}
          {refs.length === 0 ? (
            <div class="card empty">Pick metrics on the left to chart them. Drag across a chart to zoom in; double-click it to zoom out.</div>
          ) : null}
          {loaded?.gauges ? (
            <section class="card chart-card">
              <div class="chart-title">
                <h2>Gauges</h2>
                <span class="small muted">{bucketed ? "average per bucket, band from min to max" : "every point"}</span>
              </div>
              <Chart data={loaded.gauges} range={loaded.range} format={number} onZoom={zoom} onReset={reset} label="Gauges over the range" spanGaps={!bucketed} />
            </section>
          ) : null}
          {loaded?.counters ? (
            <section class="card chart-card">
              <div class="chart-title">
                <h2>Counters</h2>
                <span class="small muted">rate per second{bucketed ? ", average per bucket" : ""}</span>
              </div>
              <Chart data={loaded.counters} range={loaded.range} format={number} onZoom={zoom} onReset={reset} label="Counter rates over the range" spanGaps={!bucketed} />
            </section>
          ) : null}
          {loaded && loaded.availability.length > 0 ? (
            <section class="card chart-card">
              <div class="chart-title">
                <h2>Availability</h2>
                <span class="small muted">every change of state</span>
              </div>
              {loaded.availability.map((a) => (
                <AvailabilityStrip key={a.id} segments={a.segments} range={loaded.range} label={a.id} />
              ))}
              <div class="strip-row">
                <span />
                <div class="strip-axis">
                  <span>{dateTime(loaded.range[0])}</span>
                  <span>{dateTime(loaded.range[1])}</span>
                </div>
                <span />
              </div>
            </section>
          ) : null}
          {loaded?.strings.map((s) => (
            <section class="card chart-card" key={s.id}>
              <div class="chart-title">
                <h2 class="mono">{s.id}</h2>
                <span class="small muted">latest values</span>
              </div>
              {s.points.length === 0 ? (
                <p class="muted">No value in the range.</p>
              ) : (
                <ul class="timeline">
                  {s.points.map((p) => (
                    <li key={p.timestamp}>
                      <span class="muted">{dateTime(p.timestamp)}</span>
                      <span class="mono" style={{ gridColumn: "span 2" }}>
                        {String(p.value)}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          ))}
          {loaded && refs.length > 0 ? <p class="footer-note">Read in {Math.round(loaded.ms)} ms.</p> : null}
        </div>
      </div>
    </>
  );
}

export const metricsLink = (refs: MetricRef[], range = "1h") => href(["metrics"], { range }) + refs.map((m) => `&m=${encodeURIComponent(refText(m))}`).join("");
