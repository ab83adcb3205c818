import type { Database } from "bun:sqlite";
import type { Action } from "../../src/alerts/model.ts";
import { baseline, type DatabaseSchema, migrate } from "../../src/sqlite/migrations.ts";

/**
 * The record of local actions (`actions.db`): each run is written before it starts and again
 * when it ends, every step committed (synchronous=FULL) before the next. So a run is started
 * at most once: one found `running` at start-up was interrupted (the agent was killed or the
 * host lost power) and is reported as such, never run again; one still `planned` had not
 * started and runs then. Rows stay for the rate window (they are what the rate limit counts)
 * and until their outcome is in the events buffer.
 */
const DDL = [
  `CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,          -- agentRunId: one action, for one alert or event, in one state
    trigger_id TEXT NOT NULL,
    state TEXT NOT NULL,          -- planned, running, done
    planned INTEGER NOT NULL,     -- ms
    started INTEGER,              -- ms, once it started (what the rate limit counts)
    action TEXT NOT NULL,         -- the Action as planned (JSON, with its alert or event)
    outcome TEXT,                 -- the Action as reported (JSON), once done
    reported INTEGER NOT NULL DEFAULT 0
  )`,
  "CREATE INDEX IF NOT EXISTS runs_trigger ON runs (trigger_id, started)",
  "CREATE INDEX IF NOT EXISTS runs_state ON runs (state, reported)",
];

/** With a floor, as the buffers have (agent/buffer/schema.ts): an agent put back by a rollback keeps using it. */
export const ACTIONS_DB: DatabaseSchema = { name: "actions.db", floor: true, migrations: [baseline("local action runs", DDL)] };

export interface PlannedRun {
  id: string;
  triggerId: string;
  action: Action;
  /** When it started (interrupted runs). */
  started?: number;
}

export class ActionJournal {
  private readonly q;

  constructor(private readonly db: Database) {
    migrate(db, ACTIONS_DB);
    this.q = {
      plan: db.query<null, [string, string, number, string]>("INSERT OR IGNORE INTO runs (id, trigger_id, state, planned, action) VALUES (?, ?, 'planned', ?, ?)"),
      start: db.query<null, [number, string]>("UPDATE runs SET state = 'running', started = ? WHERE id = ? AND state = 'planned'"),
      finish: db.query<null, [string, string]>("UPDATE runs SET state = 'done', outcome = ? WHERE id = ?"),
      reported: db.query<null, [string]>("UPDATE runs SET reported = 1 WHERE id = ?"),
      startedSince: db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM runs WHERE trigger_id = ? AND started >= ?"),
      inState: db.query<{ id: string; trigger_id: string; action: string; started: number | null }, [string]>(
        "SELECT id, trigger_id, action, started FROM runs WHERE state = ? ORDER BY planned, id",
      ),
      unreported: db.query<{ id: string; outcome: string }, []>("SELECT id, outcome FROM runs WHERE state = 'done' AND reported = 0 ORDER BY planned, id"),
      purge: db.query<null, [number]>("DELETE FROM runs WHERE state = 'done' AND reported = 1 AND planned < ?"),
    };
  }

  /** Records runs to make; a run already recorded (the same action for the same alert state) is left alone. Returns those that are new. */
  plan(runs: readonly PlannedRun[], now: number): PlannedRun[] {
    const fresh: PlannedRun[] = [];
    this.db.transaction(() => {
      for (const r of runs) if (this.q.plan.run(r.id, r.triggerId, now, JSON.stringify(r.action)).changes > 0) fresh.push(r);
    })();
    return fresh;
  }

  /** Committed before the action starts: from here on it is never started again. False when it was not planned (already started). */
  start(id: string, now: number): boolean {
    return this.q.start.run(now, id).changes > 0;
  }

  finish(id: string, outcome: Action): void {
    this.q.finish.run(JSON.stringify(outcome), id);
  }

  markReported(ids: readonly string[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.q.reported.run(id);
    })();
  }

  /** Runs of a trigger started at or after `since`. */
  startedSince(triggerId: string, since: number): number {
    return this.q.startedSince.get(triggerId, since)?.n ?? 0;
  }

  planned(): PlannedRun[] {
    return this.q.inState.all("planned").map((r) => ({ id: r.id, triggerId: r.trigger_id, action: JSON.parse(r.action) as Action }));
  }

  /** Runs that were started and never ended: the agent stopped during them. */
  interrupted(): PlannedRun[] {
    return this.q.inState.all("running").map((r) => ({ id: r.id, triggerId: r.trigger_id, action: JSON.parse(r.action) as Action, started: r.started ?? undefined }));
  }

  /** Outcomes not yet in the events buffer. */
  unreported(): { id: string; outcome: Action }[] {
    return this.q.unreported.all().map((r) => ({ id: r.id, outcome: JSON.parse(r.outcome) as Action }));
  }

  /** Forgets reported runs planned before `before`. */
  purge(before: number): void {
    this.q.purge.run(before);
  }

  close(): void {
    this.db.close();
  }
}
