import { useRef } from "preact/hooks";
import { parentOf, type ResourceNode, visibleNodes } from "../pages/inventory-model.ts";

interface TreeProps {
  roots: ResourceNode[];
  selected: string | undefined;
  expanded: ReadonlySet<string>;
  onSelect: (path: string) => void;
  onToggle: (path: string, open: boolean) => void;
  label: string;
}

/**
 * The resources of a feed as an ARIA tree: click or Enter selects, arrows move (Right opens,
 * Left closes or goes to the parent), Home and End jump; one item is in the tab order.
 */
export function ResourceTree(p: TreeProps) {
  const root = useRef<HTMLDivElement>(null);
  const focusPath = p.selected ?? p.roots[0]?.entity.path;
  const focus = (path: string) => root.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(path)}"]`)?.focus();

  const onKey = (e: KeyboardEvent, current: string) => {
    // Each item hears the keys of its descendants too: only the focused one acts.
    if ((e.currentTarget as HTMLElement) !== document.activeElement) return;
    const list = visibleNodes(p.roots, p.expanded);
    const i = list.findIndex((x) => x.node.entity.path === current);
    if (i < 0) return;
    const node = list[i]!.node;
    const open = p.expanded.has(current);
    let handled = true;
    switch (e.key) {
      case "ArrowDown":
        if (i + 1 < list.length) focus(list[i + 1]!.node.entity.path);
        break;
      case "ArrowUp":
        if (i > 0) focus(list[i - 1]!.node.entity.path);
        break;
      case "ArrowRight":
        if (node.children.length && !open) p.onToggle(current, true);
        else if (node.children.length) focus(node.children[0]!.entity.path);
        break;
      case "ArrowLeft":
        if (open) p.onToggle(current, false);
        else if (list.some((x) => x.node.entity.path === parentOf(current))) focus(parentOf(current));
        break;
      case "Home":
        focus(list[0]!.node.entity.path);
        break;
      case "End":
        focus(list[list.length - 1]!.node.entity.path);
        break;
      case "Enter":
      case " ":
        p.onSelect(current);
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const item = (n: ResourceNode, depth: number) => {
    const path = n.entity.path;
    const open = p.expanded.has(path);
    const leaf = n.children.length === 0;
    const choose = (e: Event) => {
      e.stopPropagation();
      p.onSelect(path);
      if (!leaf && !open) p.onToggle(path, true);
    };
    return (
      <div
        key={path}
        class="tree-item"
        role="treeitem"
        data-path={path}
        tabIndex={path === focusPath ? 0 : -1}
        aria-expanded={leaf ? undefined : open}
        aria-selected={p.selected === path}
        aria-level={depth + 1}
        aria-label={n.entity.name ?? n.entity.id}
        onClick={choose}
        onKeyDown={(e) => onKey(e, path)}
      >
        <div class="node">
          <span
            class="twisty"
            aria-hidden="true"
            onClick={(e) => {
              e.stopPropagation();
              if (!leaf) p.onToggle(path, !open);
            }}
          >
            {leaf ? "" : open ? "▾" : "▸"}
          </span>
          <span>{n.entity.name ?? n.entity.id}</span>
          <span class="kind">{n.entity.type?.name ?? ""}</span>
          {n.metrics.length ? <span class="kind">· {n.metrics.length} metrics</span> : null}
        </div>
        {!leaf && open ? (
          // biome-ignore lint/a11y/useSemanticElements: a tree's nested level is an ARIA group, not a form's fieldset
          <div role="group" class="tree-group">
            {n.children.map((c) => item(c, depth + 1))}
          </div>
        ) : null}
      </div>
    );
  };

  return (
    <div class="tree" role="tree" aria-label={p.label} ref={root}>
      {p.roots.map((n) => item(n, 0))}
    </div>
  );
}
