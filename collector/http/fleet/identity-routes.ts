import * as z from "zod";
import { authorizeAdmin } from "../../../src/http/access.ts";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { jsonOr204 } from "../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { INSTANCE_ID_PATTERN } from "../../../src/protocol/identity.ts";
import type { FleetServices } from "../../fleet/services.ts";

const moveBody = z.object({ instance: z.string().regex(INSTANCE_ID_PATTERN, "an instance id is 32 hexadecimal digits (as GET …/identity shows it)") }).strict();

const feedOf = (c: ServiceContext) => c.req.param("feed") ?? "";
const authorOf = (c: ServiceContext) => c.get("access")?.name ?? "anonymous";

/**
 * Agent identities (docs/fleet.md, "Identity"): which identity holds a feed, who else claimed
 * it, and the audited moves. Moving or releasing a feed needs an admin credential.
 */
export function identityRoutes(r: Routes, fleet: FleetServices): void {
  r.get("/conflicts", async (c) => jsonOr204(c, await fleet.store.conflicts(c.get("tenant"))));

  r.get("/feeds/:feed/identity", async (c) => {
    const tenant = c.get("tenant");
    const feed = feedOf(c);
    const { holder, conflicts, changes } = await fleet.store.identityView(tenant, feed);
    if (!holder && conflicts.length === 0 && changes.length === 0) throw new ApiError(404, `No agent identity has claimed feed '${feed}'`);
    return c.json({ feed, ...(holder ? { holder } : {}), conflicts, changes });
  });

  r.put("/feeds/:feed/identity", async (c) => {
    authorizeAdmin(c, "Moving a feed to another agent identity");
    const { instance } = parseWith(moveBody, await readJson(c), "body");
    const m = await fleet.identities.move(c.get("tenant"), feedOf(c), instance, authorOf(c));
    return c.json({ feed: m.feed, ...(m.from ? { from: m.from } : {}), to: instance, holder: await fleet.store.identity(c.get("tenant"), m.feed) });
  });

  r.delete("/feeds/:feed/identity", async (c) => {
    authorizeAdmin(c, "Releasing a feed from its agent identity");
    const tenant = c.get("tenant");
    const feed = feedOf(c);
    if (!(await fleet.store.identity(tenant, feed))) throw new ApiError(404, `No agent identity holds feed '${feed}'`);
    const m = await fleet.identities.move(tenant, feed, undefined, authorOf(c));
    return c.json({ feed, released: m.from });
  });

  const dismiss = async (c: ServiceContext, instance?: string) => {
    const n = await fleet.store.dismissConflicts(c.get("tenant"), feedOf(c), instance);
    if (n === 0) throw new ApiError(404, `No conflict to dismiss on feed '${feedOf(c)}'${instance ? ` for identity ${instance}` : ""}`);
    return c.body(null, 204);
  };
  r.delete("/feeds/:feed/conflicts", (c) => dismiss(c));
  r.delete("/feeds/:feed/conflicts/:instance", (c) => dismiss(c, c.req.param("instance")));
}
