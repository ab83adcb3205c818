/**
 * A tenant's numeric series with their Prometheus labels and postings (label = value → series),
 * kept between queries. Each use brings it up to date from the store's in-memory definition
 * list (one cheap pass comparing tags); labels are rebuilt only for series whose tags changed
 * and the postings only when some series came, went or changed. A selector then visits the
 * series of its most selective equality (or regex) matcher instead of every definition.
 */
import type { Matcher } from "../promql/ast.ts";
import { labelsFromRecord, type Labels } from "../promql/labels.ts";
import { matchesAll, matchesValue } from "../promql/matchers.ts";
import { metricLabels } from "./series-mapping.ts";
import type { Tags } from "../metrics/model.ts";
import type { MetricsReader, SeriesEntry } from "../metrics/reader.ts";

export interface IndexedSeries {
  entry: SeriesEntry;
  labels: Labels;
  /** The tags `labels` were made from (the entry may be the store's own, live object). */
  tags: Tags | undefined;
}

function sameTags(a: Tags | undefined, b: Tags | undefined): boolean {
  if (a === b) return true;
  const ak = a ? Object.keys(a) : [];
  const bk = b ? Object.keys(b) : [];
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (a![k] !== b![k]) return false;
  return true;
}

export class LabelIndex {
  /** The store's seriesVersion when last refreshed (undefined: unknown, refresh at each use). */
  version: number | undefined;
  /** By type, then id. */
  private series = new Map<string, Map<string, IndexedSeries>>();
  private size = 0;
  private postings = new Map<string, Map<string, IndexedSeries[]>>();

  /** Takes the store's current definitions (string metrics are not series). */
  refresh(entries: readonly SeriesEntry[]): void {
    // The common case, nothing added, removed or retagged: one lookup per series, no allocation.
    let same = 0;
    for (const e of entries) {
      if (e.type === "string") continue;
      const old = this.series.get(e.type)?.get(e.id);
      if (!old || !sameTags(old.tags, e.tags)) {
        same = -1;
        break;
      }
      same++;
    }
    if (same === this.size) {
      // Fresh entries carry the current point spans.
      for (const e of entries) if (e.type !== "string") this.series.get(e.type)!.get(e.id)!.entry = e;
      return;
    }
    this.rebuild(entries);
  }

  private rebuild(entries: readonly SeriesEntry[]): void {
    const next = new Map<string, Map<string, IndexedSeries>>();
    this.size = 0;
    this.postings = new Map();
    for (const e of entries) {
      if (e.type === "string") continue;
      const old = this.series.get(e.type)?.get(e.id);
      const s = old && sameTags(old.tags, e.tags) ? old : { entry: e, labels: labelsFromRecord(metricLabels(e.id, e.tags)), tags: e.tags };
      s.entry = e;
      let byId = next.get(e.type);
      if (!byId) next.set(e.type, (byId = new Map()));
      byId.set(e.id, s);
      this.size++;
      for (const [name, value] of s.labels) {
        let byValue = this.postings.get(name);
        if (!byValue) this.postings.set(name, (byValue = new Map()));
        const list = byValue.get(value);
        if (list) list.push(s);
        else byValue.set(value, [s]);
      }
    }
    this.series = next;
  }

  /** Every series (a new array). */
  all(): IndexedSeries[] {
    const out: IndexedSeries[] = [];
    for (const byId of this.series.values()) for (const s of byId.values()) out.push(s);
    return out;
  }

  /**
   * The series a matcher confines the search to, when it cannot match the empty value (a
   * missing label): the postings of its matching values. Undefined: any series may match.
   */
  private candidates(m: Matcher): IndexedSeries[] | undefined {
    if (matchesValue(m, "")) return undefined;
    const byValue = this.postings.get(m.name);
    if (!byValue) return [];
    if (m.op === "=") return byValue.get(m.value) ?? [];
    const out: IndexedSeries[] = [];
    for (const [value, list] of byValue) if (matchesValue(m, value)) for (const s of list) out.push(s);
    return out;
  }

  /** Series matching every matcher and having points that may fall in [start, end]. */
  matching(matchers: readonly Matcher[], start: number, end: number): IndexedSeries[] {
    let base: IndexedSeries[] | undefined;
    // Equality first: its postings are one lookup; a regex walks the label's values.
    for (const m of [...matchers].sort((a, b) => (a.op === "=" ? 0 : 1) - (b.op === "=" ? 0 : 1))) {
      const c = this.candidates(m);
      if (c && (!base || c.length < base.length)) base = c;
      if (base && base.length === 0) return [];
    }
    return (base ?? this.all()).filter((s) => {
      const { minTs, maxTs } = s.entry;
      if (minTs === undefined || maxTs === undefined || maxTs < start || minTs > end) return false;
      return matchesAll(s.labels, matchers);
    });
  }
}

const indexes = new WeakMap<MetricsReader, Map<string, LabelIndex>>();

/** The tenant's label index, up to date with the store. */
export async function labelIndex(store: MetricsReader, tenant: string): Promise<LabelIndex> {
  let byTenant = indexes.get(store);
  if (!byTenant) indexes.set(store, (byTenant = new Map()));
  let index = byTenant.get(tenant);
  if (!index) byTenant.set(tenant, (index = new LabelIndex()));
  // Nothing added, removed or retagged since (a store whose entries are live): a query's fixed
  // cost no longer grows with the tenant's series (listing and comparing them was O(series)).
  const version = store.seriesVersion?.();
  if (version !== undefined && version === index.version) return index;
  index.refresh(await store.listSeries(tenant));
  index.version = version;
  return index;
}
