import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

/** The time, refreshed every `ms`, so "5 min ago" stays true without new data. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** A readable message for anything a request threw. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

const isAbort = (e: unknown) => e instanceof DOMException && e.name === "AbortError";

/**
 * Runs `load` now and again `everyMs` after each run ends (never two at once), skipping
 * turns while the tab is hidden; restarts when `deps` change. Returns the last error, if any.
 */
export function usePolling(load: (signal: AbortSignal) => Promise<void>, everyMs: number, deps: unknown[]): string | undefined {
  const [error, setError] = useState<string>();
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (!document.hidden) {
        try {
          await latest.current(ctl.signal);
          if (!ctl.signal.aborted) setError(undefined);
        } catch (e) {
          if (!isAbort(e) && !ctl.signal.aborted) setError(errorText(e));
        }
      }
      if (!ctl.signal.aborted && everyMs > 0) timer = setTimeout(run, everyMs);
    };
    void run();
    return () => {
      ctl.abort();
      clearTimeout(timer);
    };
  }, [everyMs, ...deps]);
  return error;
}

/** Runs `load` once per change of `deps`; a newer run aborts the older one. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): { data?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [turn, setTurn] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (e) => !ctl.signal.aborted && !isAbort(e) && setState({ error: errorText(e), loading: false }),
    );
    return () => ctl.abort();
  }, [...deps, turn]);
  return { ...state, reload: () => setTurn((t) => t + 1) };
}
