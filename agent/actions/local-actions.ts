import type { ActionsConfig } from "../../src/agent-config/actions.ts";
import { AGENT_PLUGIN, AGENT_PLUGIN_PROPERTIES, agentActionProblems } from "../../src/alerts/actions/agent-plugin.ts";
import { agentRunId, MAX_RESULT_MESSAGE } from "../../src/alerts/actions/agent-record.ts";
import { unknownProperties } from "../../src/alerts/actions/plugin.ts";
import { type ActionLookup, actionsToRun } from "../../src/alerts/actions/select.ts";
import type { Action, ActionDefinition, Alert, Event } from "../../src/alerts/model.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { Counter } from "../../src/telemetry/registry.ts";
import type { ActionJournal, PlannedRun } from "./journal.ts";
import { type Outcome, prepareAction } from "./perform.ts";

export interface LocalActionsOptions {
  tenant: string;
  feed: string;
  config: ActionsConfig;
  /** Opened on first need: an agent that never had an action definition keeps no journal. */
  journal: () => ActionJournal;
  /** True when a journal exists from an earlier run (open it at start to finish its business). */
  journalExists: boolean;
  /** Puts outcomes into the events buffer (they reach the collector's action history); resolves once committed. */
  report(outcomes: Action[]): Promise<void>;
  counters: { ran: Counter; refused: Counter; failed: Counter };
  log: Logger;
  now?: () => number;
}

/** How long reported runs stay in the journal at least (duplicate firings are recognised within it). */
const KEEP_MS = 86_400_000;

/**
 * Local actions (docs/local-triggers.md, "Local actions"): for what a local trigger fired, the
 * `agent` actions its definition links (and the global ones) are planned in the journal, then
 * run (at most `concurrency` at a time) if the agent's configuration allows them and the
 * trigger's rate allows one more; every outcome, refusals included, goes to the collector's
 * action history through the events buffer.
 */
export class LocalActions {
  private definitions = new Map<string, ActionDefinition>();
  private globals: ActionDefinition[] = [];
  private journalOpen: ActionJournal | undefined;
  private readonly queue: PlannedRun[] = [];
  private running = 0;
  private reporting: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly now: () => number;
  private readonly idle = new Set<() => void>();

  constructor(private readonly o: LocalActionsOptions) {
    this.now = o.now ?? Date.now;
    if (o.journalExists) this.resume();
  }

  private get journal(): ActionJournal {
    this.journalOpen ??= this.o.journal();
    return this.journalOpen;
  }

  /** The definitions pushed with the triggers; those of other plugins, or invalid, are skipped (and logged). */
  setDefinitions(raw: readonly ActionDefinition[]): void {
    const defs = new Map<string, ActionDefinition>();
    for (const d of raw) {
      if (d.actionPlugin !== AGENT_PLUGIN) continue;
      const unknown = unknownProperties({ properties: AGENT_PLUGIN_PROPERTIES }, d.properties ?? {});
      const problems = [...unknown.map((k) => `property ${k} is not valid on plugin ${AGENT_PLUGIN}`), ...agentActionProblems(d.properties ?? {})];
      if (problems.length > 0) {
        this.o.log.warn("ignoring an invalid pushed action definition", { actionId: d.actionId, problem: problems[0] });
        continue;
      }
      defs.set(d.actionId, { ...d, tenantId: this.o.tenant });
    }
    this.definitions = defs;
    this.globals = [...defs.values()].filter((d) => d.global === true);
  }

  get definitionCount(): number {
    return this.definitions.size;
  }

  /** What local triggers fired or resolved: plans and starts the actions they call for. */
  onFired(items: readonly (Alert | Event)[]): void {
    if (this.closed || this.definitions.size === 0) return;
    const lookup: ActionLookup = {
      definition: (plugin, id) => (plugin === AGENT_PLUGIN ? this.definitions.get(id) : undefined),
      globals: this.globals,
    };
    const now = this.now();
    const runs: PlannedRun[] = [];
    for (const item of items) {
      for (const action of actionsToRun(item, lookup, now)) runs.push({ id: agentRunId(action), triggerId: item.trigger?.id ?? "", action });
    }
    if (runs.length === 0) return;
    let fresh: PlannedRun[];
    try {
      fresh = this.journal.plan(runs, now);
    } catch (e) {
      // Not recorded, so not run: an action must never run without its record.
      this.o.log.error("local actions not planned: their journal cannot be written", { err: (e as Error).message, actions: runs.length });
      return;
    }
    this.queue.push(...fresh);
    this.pump();
  }

  /** After a restart: interrupted runs are reported and never run again; planned ones run; outcomes not yet buffered are buffered. */
  private resume(): void {
    const j = this.journal;
    for (const r of j.interrupted()) {
      this.o.log.warn("a local action was interrupted by the agent's stop; it is not run again", { trigger: r.triggerId, actionId: r.action.actionId });
      this.o.counters.failed.inc();
      j.finish(r.id, this.record(r.action, r.started ?? r.action.ctime, {
        result: "FAILED",
        message: "interrupted: the agent stopped while it ran (killed, crashed or the power failed); its outcome is unknown and it is not run again",
      }));
    }
    this.queue.push(...j.planned());
    this.flushReports();
    this.pump();
  }

  /** Every tick: outcomes the events buffer refused earlier (a full disk) are tried again; old runs are forgotten. */
  tick(): void {
    if (!this.journalOpen || this.closed) return;
    this.flushReports();
    try {
      this.journal.purge(this.now() - Math.max(KEEP_MS, this.o.config.rateWindowMs));
    } catch {
      // a full disk: the next tick tries again
    }
  }

  private pump(): void {
    while (!this.closed && this.running < this.o.config.concurrency && this.queue.length > 0) {
      const run = this.queue.shift()!;
      this.running++;
      void this.execute(run).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) for (const fn of this.idle) fn();
      });
    }
  }

  private async execute(run: PlannedRun): Promise<void> {
    const j = this.journal;
    const cfg = this.o.config;
    const logCtx = { trigger: run.triggerId, actionId: run.action.actionId, event: run.action.eventId };
    const prepared = prepareAction(run.action, { config: cfg, feed: this.o.feed, log: this.o.log });
    const now = this.now();
    let refusal = "refused" in prepared ? prepared.refused : undefined;
    if (refusal === undefined && j.startedSince(run.triggerId, now - cfg.rateWindowMs) >= cfg.maxRuns) {
      refusal = `refused: rate limit: trigger ${run.triggerId} already ran ${cfg.maxRuns} actions within ${Math.round(cfg.rateWindowMs / 1000)} s ([agent.actions] max_runs, rate_window)`;
    }
    if (refusal !== undefined || !("start" in prepared)) {
      this.o.log.warn("local action refused", { ...logCtx, why: refusal });
      this.o.counters.refused.inc();
      this.complete(run, now, { result: "FAILED", message: refusal ?? "refused" });
      return;
    }
    // Committed before anything happens: a run found started after a crash is never started again.
    if (!j.start(run.id, now)) return;
    let outcome: Outcome;
    try {
      outcome = await prepared.start();
    } catch (e) {
      outcome = { result: "FAILED", message: (e as Error).message };
    }
    (outcome.result === "PROCESSED" ? this.o.counters.ran : this.o.counters.failed).inc();
    this.o.log.info("local action ran", { ...logCtx, result: outcome.result, message: outcome.message });
    this.complete(run, now, outcome);
  }

  private record(action: Action, started: number, outcome: Outcome): Action {
    const r: Action = {
      ...action,
      ctime: started,
      endTime: this.now(),
      result: outcome.result,
      resultMessage: outcome.message.slice(0, MAX_RESULT_MESSAGE),
    };
    if (outcome.output !== undefined && outcome.output.length > 0) r.output = outcome.output;
    return r;
  }

  private complete(run: PlannedRun, started: number, outcome: Outcome): void {
    // Past the stop's grace: left `running`, reported as interrupted after the next start.
    if (this.closed) return;
    try {
      this.journal.finish(run.id, this.record(run.action, started, outcome));
    } catch (e) {
      this.o.log.error("the outcome of a local action could not be recorded", { err: (e as Error).message, actionId: run.action.actionId });
      return;
    }
    this.flushReports();
  }

  /** Buffers the outcomes not buffered yet, one batch at a time. */
  private flushReports(): void {
    this.reporting = this.reporting.then(async () => {
      if (!this.journalOpen) return;
      const pending = this.journal.unreported();
      if (pending.length === 0) return;
      try {
        await this.o.report(pending.map((p) => p.outcome));
        this.journal.markReported(pending.map((p) => p.id));
      } catch (e) {
        // Kept unreported in the journal: the next tick tries again.
        this.o.log.debug("outcomes of local actions wait for the events buffer", { err: (e as Error).message, outcomes: pending.length });
      }
    });
  }

  /** Resolves once nothing runs or waits (tests, and a clean stop). */
  async settled(): Promise<void> {
    if (this.running > 0 || this.queue.length > 0) await new Promise<void>((resolve) => {
      const fn = () => {
        this.idle.delete(fn);
        resolve();
      };
      this.idle.add(fn);
    });
    await this.reporting;
  }

  /**
   * Stops starting actions and waits (at most `graceMs`) for those running; one that outlasts
   * the grace stays `running` in the journal and is reported as interrupted after the next start.
   */
  async close(graceMs = 5000): Promise<void> {
    this.queue.length = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.settled(), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.closed = true;
    this.journalOpen?.close();
  }
}
