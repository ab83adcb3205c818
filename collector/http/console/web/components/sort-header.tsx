import type { ComponentChildren } from "preact";

export type SortDir = "asc" | "desc";

/** A column header that sorts its table: a button (keyboard reachable) and aria-sort for readers. */
export function SortHeader<K extends string>(p: {
  id: K;
  sort: { key: K; dir: SortDir };
  onSort: (key: K) => void;
  numeric?: boolean;
  children: ComponentChildren;
}) {
  const active = p.sort.key === p.id;
  // Numbers are right-aligned: their mark goes before the title so the titles line up with the values.
  const mark = (
    <span class="sort-mark" aria-hidden="true">
      {active ? (p.sort.dir === "asc" ? "▲" : "▼") : ""}
    </span>
  );
  return (
    <th class={p.numeric ? "num" : undefined} aria-sort={active ? (p.sort.dir === "asc" ? "ascending" : "descending") : "none"} scope="col">
      <button type="button" onClick={() => p.onSort(p.id)}>
        {p.numeric ? mark : null}
        {p.children}
        {p.numeric ? null : mark}
      </button>
    </th>
  );
}

/** The next sort after a header click: the same column flips, another starts with `initial`. */
export function nextSort<K extends string>(current: { key: K; dir: SortDir }, key: K, initial: SortDir = "asc"): { key: K; dir: SortDir } {
  if (current.key === key) return { key, dir: current.dir === "asc" ? "desc" : "asc" };
  return { key, dir: initial };
}
