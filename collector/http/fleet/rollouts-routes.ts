import * as z from "zod";
import { jsonOr204 } from "../../../src/http/json.ts";
import { readJson } from "../../../src/http/body.ts";
import { absoluteUrl, type Routes } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { parseDuration } from "../../../src/metrics/duration.ts";
import { versionProblem } from "../../../src/release/version.ts";
import type { RolloutEngine } from "../../fleet/rollout-engine.ts";
import type { FeedUpgrades } from "../../fleet/upgrades.ts";

const duration = (name: string, min: number, max: number, dflt: string) =>
  z
    .string()
    .default(dflt)
    .transform((s, ctx) => {
      try {
        return parseDuration(s);
      } catch {
        ctx.addIssue({ code: "custom", message: `${s} is not a duration such as 90s, 2mn or 1h` });
        return z.NEVER;
      }
    })
    .refine((ms) => ms >= min && ms <= max, `${name} must be between ${min / 1000} s and ${max / 3_600_000} h`);

const rolloutBody = z
  .object({
    version: z.string().refine((v) => versionProblem(v) === undefined, "expected a version such as 1.2.3"),
    tags: z.record(z.string().min(1).max(64), z.string().min(1).max(256)).optional(),
    feeds: z.array(z.string().min(1)).min(1).max(100_000).optional(),
    canary: z.number().int().min(1).max(100_000).default(1),
    batches: z
      .array(z.number().gt(0).max(100))
      .min(1)
      .max(100)
      .default([100])
      .refine((b) => b.every((x, i) => i === 0 || x > b[i - 1]!) && b.at(-1) === 100, "batches are increasing shares in percent, the last 100"),
    force: z.boolean().default(false),
    deadline: duration("deadline", 10_000, 3_600_000, "2mn"),
    timeout: duration("timeout", 60_000, 7 * 24 * 3_600_000, "30mn"),
  })
  .strict()
  .refine((b) => b.timeout > b.deadline, "timeout must be longer than deadline");

const who = (c: { get(k: "access"): { name: string } | undefined }) => c.get("access")?.name ?? "anonymous";

/** Rollouts of agent releases to a tenant's feeds, and each feed's version and upgrade (docs/fleet.md). */
export function rolloutRoutes(r: Routes, engine: RolloutEngine, upgrades: FeedUpgrades): void {
  r.get("/upgrades", async (c) => jsonOr204(c, await upgrades.feeds(c.get("tenant"))));
  r.get("/rollouts", async (c) => jsonOr204(c, await engine.list(c.get("tenant"))));
  r.post("/rollouts", async (c) => {
    const b = parseWith(rolloutBody, await readJson(c), "rollout");
    const selector = { ...(b.tags ? { tags: b.tags } : {}), ...(b.feeds ? { feeds: [...new Set(b.feeds)] } : {}) };
    const rollout = await engine.create(
      c.get("tenant"),
      { version: b.version, selector, canary: b.canary, batches: b.batches, force: b.force, deadlineMs: b.deadline, timeoutMs: b.timeout },
      who(c),
    );
    return c.json(rollout, 201, { Location: absoluteUrl(c, `/rollouts/${rollout.id}`) });
  });
  r.get("/rollouts/:id", async (c) => c.json(await engine.get(c.get("tenant"), c.req.param("id")!)));
  r.post("/rollouts/:id/pause", async (c) => c.json(await engine.pause(c.get("tenant"), c.req.param("id")!, who(c))));
  r.post("/rollouts/:id/resume", async (c) => c.json(await engine.resume(c.get("tenant"), c.req.param("id")!, who(c))));
}
