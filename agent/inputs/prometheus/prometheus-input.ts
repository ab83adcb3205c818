/**
 * The Prometheus scrape input: the configured jobs, their static and file targets, one scrape
 * loop per target. A change of configuration (SIGHUP) or of a target file is applied as a
 * difference: loops of unchanged targets go on, removed targets end their series with
 * staleness markers, new ones start.
 */
import type { Logger } from "../../../src/log/logger.ts";
import type { ScrapeJobConfig } from "../../../src/agent-config/inputs.ts";
import { hostPortProblem } from "../../../src/agent-config/inputs.ts";
import type { TargetGroup } from "../../../src/prometheus/file-sd.ts";
import { type LoopDeps, ScrapeLoop, type ScrapeTarget, type TargetStatus } from "./scrape-loop.ts";
import { TargetFiles } from "./target-files.ts";

/** The targets of a job's groups, with their labels and URL, as Prometheus derives them. */
export function jobTargets(job: ScrapeJobConfig, groups: readonly TargetGroup[], problem?: (address: string, why: string) => void): ScrapeTarget[] {
  const out: ScrapeTarget[] = [];
  for (const g of groups) {
    for (const address of g.targets) {
      const bad = hostPortProblem(address, false);
      if (bad) {
        problem?.(address, bad);
        continue;
      }
      const own = g.labels;
      const scheme = own.__scheme__ ?? job.scheme;
      const path = own.__metrics_path__ ?? job.metricsPath;
      const params = new URLSearchParams(job.params);
      for (const [k, v] of Object.entries(own)) if (k.startsWith("__param_")) params.set(k.slice(8), v);
      const labels: Record<string, string> = {};
      for (const [k, v] of Object.entries(own)) if (!k.startsWith("__")) labels[k] = v;
      labels.job ??= job.job;
      labels.instance ??= address;
      const query = params.toString();
      out.push({ job, address, labels, url: `${scheme}://${address}${path}${query ? `?${query}` : ""}` });
    }
  }
  return out;
}

/** A job's settings as text, to tell a changed job (compiled patterns left out). */
const fingerprint = (j: ScrapeJobConfig) => JSON.stringify(j, (k, v) => (k === "pattern" ? undefined : v));
const targetKey = (t: ScrapeTarget) => JSON.stringify([t.job.job, t.url, Object.entries(t.labels).sort()]);

export class PrometheusInput {
  private readonly loops = new Map<string, { loop: ScrapeLoop; config: string }>();
  private readonly files = new Map<string, { files: TargetFiles; config: string }>();
  private jobs: ScrapeJobConfig[] = [];
  private applying = Promise.resolve();

  constructor(
    private readonly deps: LoopDeps,
    private readonly log: Logger,
  ) {}

  /** Applies a (new) list of jobs. */
  apply(jobs: ScrapeJobConfig[]): Promise<void> {
    this.jobs = jobs;
    for (const [job, f] of this.files) {
      const j = jobs.find((x) => x.job === job);
      if (j && JSON.stringify([j.files, j.refreshIntervalMs]) === f.config) continue;
      f.files.stop();
      this.files.delete(job);
    }
    for (const j of jobs) {
      if (j.files.length === 0 || this.files.has(j.job)) continue;
      const files = new TargetFiles(j.files, j.refreshIntervalMs, () => void this.reconcile(), (key, message, fields) => this.deps.warn(key, message, { job: j.job, ...fields }));
      this.files.set(j.job, { files, config: JSON.stringify([j.files, j.refreshIntervalMs]) });
      files.start();
    }
    return this.reconcile();
  }

  /** Starts and stops loops to match the jobs and their target files. */
  private reconcile(): Promise<void> {
    this.applying = this.applying.then(async () => {
      const wanted = new Map<string, ScrapeTarget>();
      for (const j of this.jobs) {
        const groups: TargetGroup[] = [{ targets: j.targets, labels: j.labels }, ...(this.files.get(j.job)?.files.groups() ?? [])];
        for (const t of jobTargets(j, groups, (address, why) => this.deps.warn(address, "target skipped", { job: j.job, target: address, err: why }))) wanted.set(targetKey(t), t);
      }
      const stops: Promise<void>[] = [];
      for (const [key, l] of this.loops) {
        const t = wanted.get(key);
        if (t && fingerprint(t.job) === l.config) continue;
        this.loops.delete(key);
        // A target that stays (its job's settings changed) is not ended: its series go on.
        stops.push(l.loop.stop(!t));
      }
      await Promise.all(stops);
      let started = 0;
      for (const [key, t] of wanted) {
        if (this.loops.has(key)) continue;
        const loop = new ScrapeLoop(t, this.deps);
        this.loops.set(key, { loop, config: fingerprint(t.job) });
        loop.start();
        started++;
      }
      if (started > 0 || stops.length > 0) this.log.info("scrape targets", { targets: this.loops.size, started, stopped: stops.length, jobs: this.jobs.length });
    });
    return this.applying;
  }

  /** Every target's health, by job then URL. */
  targets(): TargetStatus[] {
    return [...this.loops.values()].map((l) => l.loop.status).sort((a, b) => a.job.localeCompare(b.job) || a.url.localeCompare(b.url));
  }

  /** Stops every loop (without ending series: the agent stops, the targets are still there). */
  async stop(): Promise<void> {
    for (const f of this.files.values()) f.files.stop();
    this.files.clear();
    this.jobs = [];
    await this.applying;
    await Promise.all([...this.loops.values()].map((l) => l.loop.stop(false)));
    this.loops.clear();
  }
}
