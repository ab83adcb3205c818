import { CONSOLE_HEADER, CSRF_HEADER, ROOT_META, SESSION_SCRIPT, type SessionInfo } from "../../../../src/http/console/names.ts";

export type { SessionInfo };

/** A refusal or failure of the collector, with its errorMsg. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Param = string | number | boolean | undefined | null | readonly string[];
export type Params = Record<string, Param>;

interface RequestOptions {
  params?: Params;
  body?: unknown;
  /** Send the tenant header (default true), or this tenant's. */
  tenant?: boolean | string;
  signal?: AbortSignal;
}

const UNSAFE = new Set(["POST", "PUT", "DELETE", "PATCH"]);

/** The way from the page to the collector's root, as the page's HTML says ("./" or "../"). */
function rootPrefix(): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${ROOT_META}"]`)?.content ?? "./";
}

/**
 * Calls to the collector's HTTP interfaces, as the logged-in session: the cookie goes by
 * itself; the tenant header, the console marker and (for changes) the CSRF token are added here.
 */
export class Api {
  readonly root = new URL(rootPrefix(), location.href);
  tenant = "";
  csrf: string | undefined;
  /** Called when the collector says the session has ended. */
  onUnauthorized: () => void = () => {};

  url(path: string, params?: Params): string {
    const u = new URL(path.replace(/^\//, ""), this.root);
    for (const [k, v] of Object.entries(params ?? {})) {
      if (v === undefined || v === null || v === "") continue;
      u.searchParams.set(k, Array.isArray(v) ? v.join(",") : String(v));
    }
    return u.toString();
  }

  private headers(method: string, o: RequestOptions): Headers {
    const h = new Headers({ Accept: "application/json", [CONSOLE_HEADER]: "1" });
    const tenant = typeof o.tenant === "string" ? o.tenant : o.tenant !== false ? this.tenant : "";
    if (tenant) h.set("Svc-Tenant", tenant);
    if (UNSAFE.has(method) && this.csrf) h.set(CSRF_HEADER, this.csrf);
    if (o.body !== undefined) h.set("Content-Type", "application/json");
    return h;
  }

  async fetch(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const res = await fetch(this.url(path, o.params), {
      method,
      headers: this.headers(method, o),
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      credentials: "same-origin",
      signal: o.signal,
    });
    if (res.ok) return res;
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { errorMsg?: string; error?: string };
      message = body.errorMsg ?? body.error ?? message;
    } catch {
      // not JSON: keep the status line
    }
    if (res.status === 401) this.onUnauthorized();
    throw new ApiError(res.status, message);
  }

  /** JSON of a request; undefined for 204 (the interfaces' "nothing"). */
  async json<T>(method: string, path: string, o: RequestOptions = {}): Promise<T | undefined> {
    const res = await this.fetch(method, path, o);
    if (res.status === 204) return undefined;
    const text = await res.text();
    return text.trim() === "" ? undefined : (JSON.parse(text) as T);
  }

  get<T>(path: string, params?: Params, signal?: AbortSignal, tenant?: string): Promise<T | undefined> {
    return this.json<T>("GET", path, { params, signal, tenant });
  }

  /** A listing: an empty array for 204. */
  async list<T>(path: string, params?: Params, signal?: AbortSignal, tenant?: string): Promise<T[]> {
    return (await this.get<T[]>(path, params, signal, tenant)) ?? [];
  }

  put<T>(path: string, params?: Params, body?: unknown): Promise<T | undefined> {
    return this.json<T>("PUT", path, { params, body });
  }

  post<T>(path: string, body?: unknown, params?: Params): Promise<T | undefined> {
    return this.json<T>("POST", path, { params, body });
  }

  /**
   * A newline-delimited JSON stream (the alerts watch): each item to `onItem` as it arrives,
   * heartbeats (blank lines) skipped. Resolves when the stream ends; rejects when it fails.
   */
  async stream<T>(path: string, params: Params, onItem: (item: T) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const res = await this.fetch("GET", path, { params, signal });
    onOpen?.();
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line !== "") {
          const item = JSON.parse(line) as T & { errorMsg?: string };
          if (item.errorMsg !== undefined) throw new ApiError(500, item.errorMsg);
          onItem(item);
        }
        nl = buffered.indexOf("\n");
      }
    }
  }

  /** The session the collector wrote into the page, if it did (read once; later ones come from the API). */
  embeddedSession(): SessionInfo | undefined {
    const el = document.getElementById(SESSION_SCRIPT);
    if (!el?.textContent) return undefined;
    el.remove();
    try {
      return JSON.parse(el.textContent) as SessionInfo;
    } catch {
      return undefined;
    }
  }

  session(): Promise<SessionInfo> {
    return this.json<SessionInfo>("GET", "console/api/session", { tenant: false }) as Promise<SessionInfo>;
  }

  async login(user: string, password: string): Promise<SessionInfo> {
    return (await this.json<SessionInfo>("POST", "console/api/login", { body: { user, password }, tenant: false })) as SessionInfo;
  }

  async logout(): Promise<void> {
    await this.fetch("POST", "console/api/logout", { tenant: false });
    this.csrf = undefined;
  }
}

/** Percent-encodes one path segment of a metric id, trigger id or alert id. */
export const seg = (s: string) => encodeURIComponent(s);
