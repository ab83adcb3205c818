import { readJson } from "../../../../src/http/body.ts";
import { jsonResponse } from "../../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../../src/http/service.ts";
import { WELL_KNOWN } from "../../../../src/inventory/model.ts";
import type { Inventory } from "../../../inventory/context.ts";
import { createEntities, deleteElement, getElement, updateElement } from "../../../inventory/elements.ts";
import { listChildren, listLinked } from "../../../inventory/listing.ts";
import { createdAt, listed, noContent, param, tenantOf, tenantRoot, topLevel } from "./support.ts";

/** `/deprecated/metadatapacks`: packs of global resource and metric types. */
export function addPackRoutes(r: Routes, inv: Inventory): void {
  const pack = (c: ServiceContext) => topLevel(c, "mp", param(c, "id"));

  r.get("/deprecated/metadatapacks", async (c) => listed(c, await listChildren(inv, tenantOf(c), tenantRoot(c), "mp")));
  r.post("/deprecated/metadatapacks", async (c) => {
    const created = await createEntities(inv, tenantOf(c), tenantRoot(c), "mp", await readJson(c));
    return createdAt(c, created.items[0], created.paths[0]!.id);
  });
  r.get("/deprecated/metadatapacks/:id", async (c) => jsonResponse(c, 200, await getElement(inv, tenantOf(c), pack(c))));
  r.put("/deprecated/metadatapacks/:id", async (c) => {
    const body = await readJson(c);
    await updateElement(inv, tenantOf(c), pack(c), body);
    return noContent(c);
  });
  r.delete("/deprecated/metadatapacks/:id", async (c) => {
    await deleteElement(inv, tenantOf(c), pack(c));
    return noContent(c);
  });
  for (const [sub, type] of [
    ["metricTypes", "mt"],
    ["resourceTypes", "rt"],
  ] as const) {
    r.get(`/deprecated/metadatapacks/:id/${sub}`, async (c) =>
      listed(c, await listLinked(inv, tenantOf(c), pack(c), WELL_KNOWN.incorporates, "out", [{ kind: "type", types: [type] }])),
    );
  }
}
