import { useEffect, useMemo, useState } from "preact/hooks";
import { Segmented } from "../components/segmented.tsx";
import { useConsole } from "../context.ts";
import { ago, count, dateTime } from "../format.ts";
import { errorText, useNow, usePolling } from "../hooks.ts";
import { href, type Route } from "../router.ts";
import {
  canonicalJson,
  type ConfigRevision,
  type ConfigTarget,
  lineDiff,
  parseConfigText,
  parseTagsText,
  reaches,
  revisionCounts,
  runningRevision,
  targetLabel,
} from "./fleet-config-model.ts";
import { configCell, type FeedSummary, toneClass } from "./fleet-model.ts";
import { FleetTabs } from "./fleet-upgrades.tsx";

type TargetKind = "feed" | "tags" | "all";
const TARGET_KINDS: { id: TargetKind; label: string }[] = [
  { id: "feed", label: "One feed" },
  { id: "tags", label: "Feeds with tags" },
  { id: "all", label: "All feeds" },
];
/** The fleet with the least the editor needs (one CPU bucket). */
const FEEDS_QUERY = { cpuRange: "1mn", cpuBuckets: 1 };
const EXAMPLE = '{\n  "log-level": "info",\n  "host-interval": "30s"\n}';

/** Checks the text with the agents' schema on the collector, a moment after typing stops. */
function useCheck(config: Record<string, unknown> | undefined): { state: "idle" | "checking" | "valid" | "invalid"; message?: string } {
  const { api } = useConsole();
  const [r, setR] = useState<{ state: "idle" | "checking" | "valid" | "invalid"; message?: string }>({ state: "idle" });
  const key = config === undefined ? undefined : JSON.stringify(config);
  useEffect(() => {
    if (key === undefined) return setR({ state: "idle" });
    setR({ state: "checking" });
    let live = true;
    const t = setTimeout(() => {
      api.post<{ valid: boolean; errorMsg?: string }>("svc/fleet/config/check", { config: JSON.parse(key) }).then(
        (a) => live && setR(a?.valid ? { state: "valid" } : { state: "invalid", message: a?.errorMsg }),
        (e) => live && setR({ state: "invalid", message: errorText(e) }),
      );
    }, 350);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [key]);
  return r;
}

function Diff({ before, after }: { before: string; after: string }) {
  const lines = lineDiff(before, after);
  if (lines.every((l) => l.kind === " ")) return <p class="muted small">No change against the running revision.</p>;
  return (
    <pre class="diff" title="Changes against the running revision">
      {lines.map((l, i) => (
        <div key={i} class={l.kind === "+" ? "add" : l.kind === "-" ? "del" : ""}>
          {l.kind} {l.text}
        </div>
      ))}
    </pre>
  );
}

/**
 * Remote configuration (docs/fleet.md): a new revision for one feed, the feeds with given tags
 * or all feeds, written as JSON, checked by the agents' own schema as it is typed and shown as
 * a diff against the revision those feeds run; the revisions so far and how each feed fares.
 */
export function FleetConfigPage({ route }: { route: Route }) {
  const { api, tenant } = useConsole();
  const now = useNow(5000);
  const [feeds, setFeeds] = useState<FeedSummary[]>([]);
  const [revisions, setRevisions] = useState<ConfigRevision[]>();
  const [turn, setTurn] = useState(0);
  const loadError = usePolling(
    async (signal) => {
      const [f, r] = await Promise.all([api.list<FeedSummary>("svc/fleet/feeds", FEEDS_QUERY, signal), api.list<ConfigRevision>("svc/fleet/config/revisions", { limit: 200 }, signal)]);
      setFeeds(f);
      setRevisions(r);
    },
    5000,
    [tenant, turn],
  );

  const [kind, setKind] = useState<TargetKind>(route.query.get("feed") ? "feed" : "tags");
  const [feed, setFeed] = useState(route.query.get("feed") ?? "");
  const [tagsText, setTagsText] = useState("role=edge");
  const [text, setText] = useState<string>();
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});

  const target: ConfigTarget | { error: string } = useMemo(() => {
    if (kind === "all") return { all: true };
    if (kind === "feed") return feed ? { feed } : { error: "Choose a feed" };
    return parseTagsText(tagsText);
  }, [kind, feed, tagsText]);
  const targetOk = !("error" in target);
  const reached = targetOk ? feeds.filter((f) => reaches(target, f)) : [];
  const running = targetOk ? runningRevision(target, feeds) : { revision: 0, feeds: 0, of: 0 };
  const base = running.revision > 0 ? revisions?.find((r) => r.revision === running.revision)?.config : {};
  const baseText = base ? canonicalJson(base) : "";
  // Until edited, the editor shows what the target runs now (or an example).
  const shown = text ?? (running.revision > 0 && base ? baseText : EXAMPLE);
  const parsed = parseConfigText(shown);
  const check = useCheck("config" in parsed ? parsed.config : undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!targetOk) return setResult({ error: target.error });
    if ("error" in parsed) return setResult({ error: parsed.error });
    setBusy(true);
    setResult({});
    try {
      const r = await api.post<ConfigRevision>("svc/fleet/config/revisions", { target, config: parsed.config, ...(comment.trim() ? { comment: comment.trim() } : {}) });
      setResult({ ok: `Revision ${r?.revision} sent to ${count(reached.length)} ${reached.length === 1 ? "feed" : "feeds"}.` });
      setText(undefined);
      setComment("");
      setTurn((t) => t + 1);
    } catch (err) {
      setResult({ error: errorText(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>Remote configuration</h1>
        <span class="sub">of the agents of {tenant}</span>
        <span class="grow" />
        <a class="btn btn-ghost" href={href(["fleet"])}>
          Back to the fleet
        </a>
      </div>
      <FleetTabs on="config" />
      {loadError ? <div class="banner error">Could not read the fleet: {loadError}</div> : null}
      <form class="card card-body config-editor" onSubmit={submit} aria-label="New configuration revision">
        <h2>New revision</h2>
        <div class="form-row">
          <Segmented label="Which feeds" options={TARGET_KINDS} isOn={(k) => k === kind} onPick={setKind} />
          {kind === "feed" ? (
            <select class="select" aria-label="Feed" value={feed} onChange={(e) => setFeed(e.currentTarget.value)}>
              <option value="">Choose a feed…</option>
              {feeds.map((f) => (
                <option key={f.feed} value={f.feed}>
                  {f.feed}
                </option>
              ))}
            </select>
          ) : kind === "tags" ? (
            <input class="input" aria-label="Tags" value={tagsText} onInput={(e) => setTagsText(e.currentTarget.value)} placeholder="role=edge, site=paris" />
          ) : null}
          <span class="muted small" aria-live="polite">
            {targetOk
              ? `${count(reached.length)} ${reached.length === 1 ? "feed" : "feeds"} now; ${running.revision > 0 ? `${count(running.feeds)} run revision ${running.revision}` : "they run their local configuration"}`
              : target.error}
          </span>
        </div>
        <div class="config-panes">
          <div class="field">
            <label for="config-text">Options, as in the agent's file ([agent] section), in JSON</label>
            <textarea id="config-text" class="input mono" rows={16} spellcheck={false} value={shown} onInput={(e) => setText(e.currentTarget.value)} />
            <div class="small" aria-live="polite">
              {"error" in parsed ? (
                <span class="bad">{parsed.error}</span>
              ) : check.state === "invalid" ? (
                <span class="bad">{check.message}</span>
              ) : check.state === "valid" ? (
                <span class="ok-text">Valid for the agents' schema</span>
              ) : (
                <span class="muted">Checking…</span>
              )}
            </div>
          </div>
          <div class="field">
            <span class="label">{running.revision > 0 ? `Changes against revision ${running.revision}, running on ${count(running.feeds)} of these feeds` : "Changes against the local configuration (no revision runs)"}</span>
            <Diff before={baseText} after={"config" in parsed ? canonicalJson(parsed.config) : shown} />
          </div>
        </div>
        <div class="form-row">
          <input class="input grow" aria-label="Comment" value={comment} onInput={(e) => setComment(e.currentTarget.value)} placeholder="Why (kept with the revision)" maxLength={1000} />
          <button type="submit" class="btn btn-primary" disabled={busy || !targetOk || "error" in parsed || check.state === "invalid"}>
            Roll out
          </button>
        </div>
        {result.error ? <div class="banner error">{result.error}</div> : null}
        {result.ok ? <div class="banner info">{result.ok}</div> : null}
        <p class="muted small">
          Each feed runs the newest revision that reaches it, whole; options the revision leaves out keep the agent's own value, and options its file pins stay local. Settable:
          log-level, inputs, host-interval, host-include, host-exclude, host-exclude-fs-types, buffer-max-bytes, buffer-max-age, events-buffer-max-bytes.
        </p>
      </form>

      {targetOk && reached.length > 0 ? (
        <div class="table-wrap">
          <table class="data" aria-label="Feeds reached">
            <thead>
              <tr>
                <th>Feed</th>
                <th>Tags</th>
                <th>Config</th>
                <th>Reported</th>
              </tr>
            </thead>
            <tbody>
              {reached.map((f) => {
                const c = configCell(f.config);
                return (
                  <tr key={f.feed}>
                    <td class="cell-main">{f.feed}</td>
                    <td class="small">
                      {Object.entries(f.identity?.tags ?? {})
                        .map(([k, v]) => `${k}=${v}`)
                        .join(" ") || <span class="faint">—</span>}
                    </td>
                    <td class={toneClass(c.tone)}>
                      {c.text}
                      {f.config?.state === "FAILED" ? <div class="cell-sub bad">{f.config.error}</div> : null}
                    </td>
                    <td class="small" title={dateTime(f.config?.reportedAt)}>
                      {ago(f.config?.reportedAt, now)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}

      <h2 class="section-title">Revisions</h2>
      <div class="table-wrap">
        <table class="data" aria-label="Configuration revisions">
          <thead>
            <tr>
              <th>Revision</th>
              <th>For</th>
              <th>Feeds: should run · run · refused</th>
              <th>Author</th>
              <th>When</th>
              <th>Comment</th>
            </tr>
          </thead>
          <tbody>
            {(revisions ?? []).map((r) => {
              const c = revisionCounts(r.revision, feeds);
              return (
                <tr key={r.revision}>
                  <td class="cell-main">{r.revision}</td>
                  <td>{targetLabel(r.target)}</td>
                  <td class="num">
                    {count(c.desired)} · {count(c.applied)} · <span class={c.failed > 0 ? "bad strong" : ""}>{count(c.failed)}</span>
                  </td>
                  <td>{r.author}</td>
                  <td title={dateTime(r.at)}>{ago(r.at, now)}</td>
                  <td class="small">{r.comment ?? ""}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {revisions !== undefined && revisions.length === 0 ? <div class="empty">No revision yet: every agent runs its local configuration.</div> : null}
      </div>
    </>
  );
}
