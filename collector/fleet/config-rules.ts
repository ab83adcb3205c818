/**
 * The rules of remote configuration on the collector (docs/fleet.md): what a revision's target
 * is, which feeds it reaches, which revision a feed should run (the newest one that reaches it,
 * whole), and the state a feed's configuration is in (OpAMP's RemoteConfigStatus).
 */
import * as z from "zod";
import { MAX_REMOTE_CONFIG_BYTES, readRemoteConfig } from "../../src/agent-config/remote.ts";
import { MAX_TAGS } from "../../src/agent-config/fleet.ts";
import { OptionError } from "../../src/config/options.ts";
import { ApiError } from "../../src/http/errors.ts";
import { describeIssues } from "../../src/http/validate.ts";
import type { ConfigRevision, ConfigTarget, FeedConfigStatus } from "../store/fleet/types.ts";
import type { ConfigStateName } from "../../src/http/fleet/answers.ts";

const tagKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, "tag names are letters, digits, _ . - (starting with a letter or _)");
const tagValue = z.string().min(1).max(256);

const targetSchema = z.union([
  z.object({ feed: z.string().trim().min(1).max(512) }).strict(),
  z
    .object({ tags: z.record(tagKey, tagValue) })
    .strict()
    .refine((t) => Object.keys(t.tags).length >= 1 && Object.keys(t.tags).length <= MAX_TAGS, `tags: 1 to ${MAX_TAGS} tags (use {"all": true} for every feed)`),
  z.object({ all: z.literal(true) }).strict(),
]);

const revisionBody = z
  .object({
    target: targetSchema,
    config: z.record(z.string(), z.unknown()),
    comment: z.string().max(1000).optional(),
  })
  .strict();

export interface RevisionInput {
  target: ConfigTarget;
  config: Record<string, unknown>;
  comment?: string;
}

/** Checks a configuration with the agent's own schema; a 400 naming the first problem. */
export function checkConfig(config: unknown): void {
  if (JSON.stringify(config ?? null).length > MAX_REMOTE_CONFIG_BYTES) throw new ApiError(400, `config: larger than ${MAX_REMOTE_CONFIG_BYTES / 1024} KiB`);
  try {
    readRemoteConfig(config);
  } catch (e) {
    if (e instanceof OptionError) throw new ApiError(400, e.message);
    throw e;
  }
}

/** A new revision's body: {target, config, comment?}, the configuration checked; a 400 otherwise. */
export function parseRevision(body: unknown): RevisionInput {
  const parsed = revisionBody.safeParse(body);
  if (!parsed.success) {
    const hint = ' (a revision is {"target": {"feed": F} | {"tags": {…}} | {"all": true}, "config": {option: value, …}, "comment"?: text})';
    throw new ApiError(400, `${describeIssues(parsed.error, "revision")}${hint}`);
  }
  checkConfig(parsed.data.config);
  return { target: parsed.data.target as ConfigTarget, config: parsed.data.config, ...(parsed.data.comment === undefined ? {} : { comment: parsed.data.comment }) };
}

/** Whether a target reaches the feed with these tags. */
export function reaches(target: ConfigTarget, feed: string, tags: Readonly<Record<string, string>>): boolean {
  if ("all" in target) return true;
  if ("feed" in target) return target.feed === feed;
  return Object.entries(target.tags).every(([k, v]) => tags[k] === v);
}

/** The revision a feed should run: the newest that reaches it. `newestFirst` as the store lists them. */
export function desiredRevision(newestFirst: readonly ConfigRevision[], feed: string, tags: Readonly<Record<string, string>>): ConfigRevision | undefined {
  return newestFirst.find((r) => reaches(r.target, feed, tags));
}

/**
 * A feed's remote configuration state, as OpAMP's RemoteConfigStatus names them: UNSET (no
 * revision reaches it, and it runs none), APPLIED (it runs the desired one), FAILED (its agent
 * refused the desired one and runs the previous), APPLYING (sent, not reported yet).
 */
export type { ConfigStateName };

export function configState(desired: number, report: FeedConfigStatus | undefined): ConfigStateName {
  const running = report?.running ?? 0;
  if (running === desired) return desired === 0 ? "UNSET" : "APPLIED";
  if (report && report.revision === desired && report.state === "failed") return "FAILED";
  return "APPLYING";
}
