import * as z from "zod";
import { actionDefinitionSchema, fullTriggerSchema, groupMemberInfoSchema } from "../../../src/alerts/schemas.ts";
import { ApiError } from "../../../src/http/errors.ts";
import type { ServiceContext } from "../../../src/http/service.ts";
import { IMPORT_STRATEGIES, type ImportStrategy } from "../../alerts/transfer.ts";
import { jsonBody } from "./body.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { ok } from "./respond.ts";
import type { Route } from "./router.ts";

const list = <S extends z.ZodType>(s: S) =>
  z
    .array(s)
    .nullish()
    .transform((v) => v ?? []);

const definitionsSchema = z.object({
  triggers: list(fullTriggerSchema),
  groupMembersInfo: list(groupMemberInfoSchema),
  actions: list(actionDefinitionSchema),
});

const tenant = (c: ServiceContext) => c.get("tenant");

/** Export and import of definitions (spec "Export and import"); the strategy is case-insensitive. */
export function transferRoutes(route: Route, { alerting }: AlertsHttpDeps): void {
  route("get", "/export", [], async (c) => ok(c, await alerting.transfer.export(tenant(c))));

  route("post", "/import/:strategy", [], async (c) => {
    const raw = c.req.param("strategy")!.toUpperCase();
    if (!(IMPORT_STRATEGIES as readonly string[]).includes(raw)) {
      throw new ApiError(400, `Invalid import strategy [${c.req.param("strategy")}]: expected one of ${IMPORT_STRATEGIES.join(", ")}`);
    }
    const defs = await jsonBody(c, definitionsSchema, "Definitions");
    return ok(c, await alerting.transfer.import(tenant(c), raw as ImportStrategy, defs));
  });
}
