import { readJson } from "../../../src/http/body.ts";
import { badRequest } from "../../../src/http/errors.ts";
import { jsonResponse } from "../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { parseSyncRequest } from "../../../src/inventory/structure.ts";
import { bulkCreate, bulkRequestSchema } from "../../inventory/bulk.ts";
import type { Inventory } from "../../inventory/context.ts";
import { checked } from "../../inventory/failures.ts";
import { syncStructure } from "../../inventory/sync.ts";
import { pathFromUrl, rawPathAfter } from "./request-path.ts";

/** `at` of a bulk request: epoch milliseconds or an ISO 8601 date-time. */
function checkAt(at: string | undefined): void {
  if (at === undefined) return;
  const ok = /^\d+$/.test(at) ? Number.isSafeInteger(Number(at)) : !Number.isNaN(Date.parse(at));
  if (!ok) throw badRequest(`'at' must be epoch milliseconds or an ISO 8601 date-time, not '${at}'`);
}

/** `POST /bulk` and `POST /sync/{path}`; `prefix` is "" or "/deprecated". */
export function addBulkAndSyncRoutes(r: Routes, inv: Inventory, prefix = ""): void {
  r.post(`${prefix}/bulk`, async (c: ServiceContext) => {
    checkAt(c.req.query("at"));
    const request = parseWith(bulkRequestSchema, await readJson(c), "bulk request");
    return jsonResponse(c, 201, await bulkCreate(inv, c.get("tenant"), request), { raw: true });
  });
  r.post(`${prefix}/sync/*`, async (c: ServiceContext) => {
    const tenant = c.get("tenant");
    const root = pathFromUrl(rawPathAfter(c, `${prefix}/sync`), tenant);
    const body = await readJson(c);
    const request = checked(() => parseSyncRequest(body));
    await syncStructure(inv, tenant, root, request);
    return c.body(null, 204);
  });
}
