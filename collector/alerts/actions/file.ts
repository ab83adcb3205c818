import { appendFile, mkdir } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import type { Action, StringMap } from "../../../src/alerts/model.ts";
import { compact } from "../../../src/http/json.ts";
import type { ActionPlugin } from "../../../src/alerts/actions/plugin.ts";

/**
 * Appends the alert or event as one JSON line to the file named by `path` (created with its
 * folders). Upstream wrote one file per event into a folder; a JSON-lines file is easier to
 * follow and to ship.
 */
export function filePlugin(): ActionPlugin {
  return {
    name: "file",
    properties: ["path"],
    check(p: StringMap) {
      return p.path && isAbsolute(p.path) ? [] : ["path must be an absolute file path"];
    },
    async run(action: Action) {
      const path = action.properties?.path;
      if (!path || !isAbsolute(path)) throw new Error(`file path is missing or not absolute: ${path}`);
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, `${JSON.stringify(compact(action.event ?? {}))}\n`);
    },
  };
}
