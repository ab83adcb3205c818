/** Helpers of the benchmarks that time pages in Chromium (console-fleet, console-metrics). */
import type { Page } from "playwright-core";
import { fmt, percentile } from "./_lib.ts";

/** Page script: the page's clock (ms since navigation start) once the next frame is painted. */
export const PAINTED = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))";

/** The page's clock once its next frame is painted. */
export async function paintedAt(page: Page): Promise<number> {
  return Number(await page.evaluate(PAINTED));
}

/** "median N ms, max M ms" of some timings. */
export function medianMax(values: number[]): string {
  const v = [...values].sort((x, y) => x - y);
  return `median ${fmt(percentile(v, 50))} ms, max ${fmt(v.at(-1)!)} ms`;
}
