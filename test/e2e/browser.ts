/**
 * Debian's Chromium, headless, driven by playwright-core: for the console's end-to-end tests,
 * its screenshots and its benchmark. A fresh profile per launch; the background-networking
 * flags keep Chromium from reaching out (on a closed network its connections are refused).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type ConsoleMessage, type Page } from "playwright-core";

export const CHROMIUM = process.env.OUTPOST_CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  /** A new tab that records console errors and uncaught exceptions into `problems`. */
  page(): Promise<Page>;
  /** Console errors and page errors seen so far, as text. */
  problems: string[];
  close(): Promise<void>;
}

export interface BrowserOptions {
  width?: number;
  height?: number;
  colorScheme?: "light" | "dark";
  deviceScaleFactor?: number;
}

export async function launchBrowser(o: BrowserOptions = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "outpost-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: o.width ?? 1440, height: o.height ?? 900 },
    colorScheme: o.colorScheme ?? "light",
    deviceScaleFactor: o.deviceScaleFactor ?? 1,
  });
  const problems: string[] = [];
  const watch = (p: Page) => {
    p.on("console", (m: ConsoleMessage) => {
      if (m.type() === "error") problems.push(`console error: ${m.text()} (${m.location().url})`);
    });
    p.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  };
  for (const p of context.pages()) watch(p);
  return {
    context,
    problems,
    async page() {
      const p = context.pages().find((x) => x.url() === "about:blank") ?? (await context.newPage());
      watch(p);
      return p;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The browser's globals that code run inside the page (page.evaluate) uses. The tests are typed
 * without the DOM library (it clashes with Bun's types), so such code reaches them through
 * `page$()`, which is only `globalThis` seen with these types.
 */
export interface PageGlobals {
  document: {
    cookie: string;
    title: string;
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): { length: number };
  };
  location: { hash: string };
}
interface PageElement {
  getAttribute(name: string): string | null;
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}

/**
 * How many pixels of a canvas in the page are near a colour (hex): proof that a chart drew
 * something, not only that its data arrived.
 */
export function coloredPixels(page: Page, selector: string, hex: string): Promise<number> {
  return page.evaluate(
    ({ selector, hex }) => {
      const canvas = (globalThis as unknown as PageGlobals).document.querySelector(selector);
      if (!canvas) return -1;
      const n = Number.parseInt(hex.slice(1), 16);
      const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
      const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! > 128 && Math.abs(data[i]! - r) < 40 && Math.abs(data[i + 1]! - g) < 40 && Math.abs(data[i + 2]! - b) < 40) count++;
      }
      return count;
    },
    { selector, hex },
  );
}
