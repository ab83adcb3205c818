import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

/** Rows drawn beyond the visible ones on each side, so a quick scroll shows no blank. */
const OVERSCAN = 12;

/**
 * Which rows of a long table (fixed row height, scrolled with the page) are on screen: only
 * those are rendered, between two spacers, so 1,000 rows cost what 40 do. Follows scrolling and
 * resizing, at most once per frame.
 */
export function useWindowedRows(count: number, rowHeight: number, body: RefObject<HTMLElement>): { start: number; end: number } {
  const [view, setView] = useState({ top: 0, height: typeof window === "undefined" ? 1000 : window.innerHeight });
  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const el = body.current;
      if (!el) return;
      const top = -el.getBoundingClientRect().top;
      setView((v) => (Math.abs(v.top - top) < rowHeight / 2 && v.height === window.innerHeight ? v : { top, height: window.innerHeight }));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
    };
  }, [body, rowHeight]);
  const first = Math.floor(Math.max(0, view.top) / rowHeight);
  const visible = Math.ceil(view.height / rowHeight);
  return { start: Math.max(0, Math.min(count, first - OVERSCAN)), end: Math.min(count, first + visible + OVERSCAN) };
}
