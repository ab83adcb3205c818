/** The README and docs/ name only npm scripts that exist (issue 25: `npm run build:collector` did not). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/program.ts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
const pages = ["README.md", ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];

describe("commands in the documentation", () => {
  it("every `npm run NAME` names a script of package.json", () => {
    const named: string[] = [];
    for (const page of pages) {
      // Words may be broken across lines in the prose: "npm run\n  build:console".
      const text = readFileSync(join(ROOT, page), "utf8").replace(/\s+/g, " ");
      for (const m of text.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)) {
        named.push(m[1]!);
        expect(Object.keys(pkg.scripts), `${page}: npm run ${m[1]}`).toContain(m[1]);
      }
    }
    // The search finds what it should: the README's agent and the docs' release.
    expect(named).toEqual(expect.arrayContaining(["agent", "release", "bench", "build:console"]));
  });
});
