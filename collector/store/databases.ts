import type { DatabaseSchema } from "../../src/sqlite/migrations.ts";
import { ALERTS_DB } from "./alerts/schema.ts";
import { FLEET_DB } from "./fleet/schema.ts";
import { FORECAST_DB } from "./forecast/schema.ts";
import { INVENTORY_DB } from "./inventory/schema.ts";
import { METRICS_DB } from "./metrics/sqlite/schema.ts";
import { RELEASES_DB } from "./releases/schema.ts";

/** Every database of the collector's data folder: what backup copies and restore puts back. */
export const COLLECTOR_DATABASES: readonly DatabaseSchema[] = [METRICS_DB, ALERTS_DB, INVENTORY_DB, FORECAST_DB, FLEET_DB, RELEASES_DB];
