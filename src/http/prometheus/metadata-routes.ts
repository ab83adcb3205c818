/** Series, label and metadata discovery: what Grafana's query builder and autocompletion call. */
import type { Context, Hono } from "hono";
import type { Matcher } from "../../promql/ast.ts";
import { compareLabels, type Labels, labelsToRecord, labelValue } from "../../promql/labels.ts";
import { ParseError, parsePromQL } from "../../promql/parse.ts";
import { type IndexedSeries, labelIndex } from "../../prometheus/label-index.ts";
import type { PrometheusReadDeps } from "./read-deps.ts";
import { MAX_TIME, MIN_TIME, type Params, parseLimit, parseTime, readParams } from "./params.ts";
import { badData, respondData } from "./respond.ts";
import { resolveTenant } from "./tenant.ts";

/** The matchers of each `match[]` selector. */
function selectors(p: Params): Matcher[][] {
  return p.getAll("match[]").map((m) => {
    let e: ReturnType<typeof parsePromQL>;
    try {
      e = parsePromQL(m);
    } catch (err) {
      if (err instanceof ParseError) throw badData(`invalid parameter "match[]": ${err.message}`);
      throw err;
    }
    if (e.kind !== "vector") throw badData(`invalid parameter "match[]": ${JSON.stringify(m)} is not a series selector`);
    return e.matchers;
  });
}

/** Series of the tenant within [start, end] matching any of the selectors (all without selectors). */
async function selected(c: Context, deps: PrometheusReadDeps, p: Params, required: boolean): Promise<IndexedSeries[]> {
  const tenant = resolveTenant(c);
  const sets = selectors(p);
  if (required && sets.length === 0) throw badData("no match[] parameter provided");
  const start = parseTime("start", p.get("start"), MIN_TIME);
  const end = parseTime("end", p.get("end"), MAX_TIME);
  const index = await labelIndex(deps.store, tenant);
  if (sets.length === 0) return index.matching([], start, end);
  const hits = new Set<IndexedSeries>();
  for (const m of sets) for (const s of index.matching(m, start, end)) hits.add(s);
  return [...hits];
}

/** Applies `limit`, warning as Prometheus does when it cut the list. */
function limited<T>(list: T[], limit: number): [T[], string[]] {
  if (limit > 0 && list.length > limit) return [list.slice(0, limit), ["results truncated due to limit"]];
  return [list, []];
}

const sortedUnique = (values: Iterable<string>) => [...new Set(values)].sort();

export function metadataRoutes(app: Hono, deps: PrometheusReadDeps): void {
  const series = async (c: Context) => {
    const p = await readParams(c);
    const hits = await selected(c, deps, p, true);
    const unique = new Map<string, Labels>();
    for (const h of hits) unique.set(JSON.stringify(h.labels), h.labels);
    const [list, warnings] = limited([...unique.values()].sort(compareLabels), parseLimit(p.get("limit")));
    return respondData(c, JSON.stringify(list.map(labelsToRecord)), warnings);
  };
  app.get("/api/v1/series", series);
  app.post("/api/v1/series", series);

  const labels = async (c: Context) => {
    const p = await readParams(c);
    const hits = await selected(c, deps, p, false);
    const [list, warnings] = limited(sortedUnique(hits.flatMap((h) => h.labels.map(([k]) => k))), parseLimit(p.get("limit")));
    return respondData(c, JSON.stringify(list), warnings);
  };
  app.get("/api/v1/labels", labels);
  app.post("/api/v1/labels", labels);

  app.get("/api/v1/label/:name/values", async (c) => {
    const p = await readParams(c);
    let name = c.req.param("name");
    // Prometheus 3 accepts U__-escaped names for UTF-8 label names.
    if (name.startsWith("U__")) name = name.slice(3).replace(/_([0-9a-fA-F]+)_/g, (_m, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16))).replace(/__/g, "_");
    if (name === "") throw badData(`invalid label name: ${JSON.stringify(name)}`);
    const hits = await selected(c, deps, p, false);
    const values = sortedUnique(hits.map((h) => labelValue(h.labels, name)).filter((v) => v !== ""));
    const [list, warnings] = limited(values, parseLimit(p.get("limit")));
    return respondData(c, JSON.stringify(list), warnings);
  });

  app.get("/api/v1/metadata", async (c) => {
    const p = await readParams(c);
    const tenant = resolveTenant(c);
    const only = p.get("metric");
    const limit = parseLimit(p.get("limit"));
    const out: Record<string, { type: string; help: string; unit: string }[]> = {};
    const index = (await labelIndex(deps.store, tenant)).all().sort((a, b) => compareLabels(a.labels, b.labels));
    for (const s of index) {
      const name = labelValue(s.labels, "__name__");
      if ((only && name !== only) || out[name]) continue;
      if (limit > 0 && Object.keys(out).length >= limit) break;
      out[name] = [{ type: s.entry.type === "counter" ? "counter" : "gauge", help: "", unit: "" }];
    }
    return respondData(c, JSON.stringify(out));
  });

  app.get("/api/v1/status/buildinfo", (c) =>
    respondData(c, JSON.stringify({ version: "3.0.0", revision: `outpost-${deps.version}`, branch: "outpost", buildUser: "outpost", buildDate: "", goVersion: "" })),
  );
  // Grafana asks for these; Outpost has no exemplars and no Prometheus rules.
  app.get("/api/v1/query_exemplars", (c) => respondData(c, "[]"));
  app.post("/api/v1/query_exemplars", (c) => respondData(c, "[]"));
  app.get("/api/v1/rules", (c) => respondData(c, '{"groups":[]}'));
  app.get("/api/v1/alerts", (c) => respondData(c, '{"alerts":[]}'));
}
