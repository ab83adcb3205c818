import { afterAll } from "vitest";
import { dropBackendDatabases } from "./postgres-backend.ts";

// Setup file of the "postgres" project: the databases of the file's collectors go with it.
afterAll(dropBackendDatabases);
