import type { Routes } from "../../../../src/http/service.ts";
import type { Inventory } from "../../../inventory/context.ts";

/** The earlier interface under `/deprecated`, on the same store. */
export function addDeprecatedRoutes(r: Routes, _inv: Inventory): void {
  r.get("/deprecated", (c) => c.json({ endpoints: [] }));
}
