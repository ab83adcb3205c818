import { expect } from "vitest";
import type { TestCollector } from "../helpers/collector.ts";

/** Reads a watch stream: JSON items separated by CRLF, with single spaces as heartbeats. */
export class WatchReader {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  private readonly decoder = new TextDecoder();
  private buffer = "";
  /** Everything received so far, heartbeats included. */
  raw = "";

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  private async more(deadline: number): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`watch stream: nothing more before the deadline; received so far: ${JSON.stringify(this.raw)}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const r = await Promise.race([this.reader.read(), new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error("watch read timed out")), left)))]);
    clearTimeout(timer);
    if (r.done) throw new Error("watch stream ended");
    const text = this.decoder.decode(r.value, { stream: true });
    this.raw += text;
    this.buffer += text;
  }

  /** The next item (blank lines and heartbeats skipped). */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  async next(deadlineMs = 10_000): Promise<any> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const i = this.buffer.indexOf("\r\n");
      if (i >= 0) {
        const line = this.buffer.slice(0, i).trim();
        this.buffer = this.buffer.slice(i + 2);
        if (line.length > 0) return JSON.parse(line);
        continue;
      }
      await this.more(deadline);
    }
  }

  /** Waits until the raw stream satisfies `done`. */
  async until(done: (raw: string) => boolean, deadlineMs = 10_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (!done(this.raw)) await this.more(deadline);
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

/** Opens a watch stream of the alerting interface and checks it is one (JSON, chunked). */
export async function openWatchStream(col: TestCollector, path: string, tenant = "t1"): Promise<WatchReader> {
  const res = await col.req(`/svc/alerts${path}`, { tenant });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/application\/json/);
  expect(res.headers.get("Content-Length")).toBeNull();
  return new WatchReader(res);
}
