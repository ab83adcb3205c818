/**
 * The README's test command on a fresh machine: `npm ci && npm test`, which `.ci/run` calls
 * verbatim; its pretest step installs the Debian packages the tests use (or names the command);
 * and its closing line counts what ran, failures of files and hooks included.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runToEnd } from "../helpers/program.ts";
import { SYSTEM_NEEDS } from "./system-packages.ts";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The command of the README's "install and run the tests" block. */
function readmeTestCommand(): string {
  const m = /```sh\n# install and run the tests[^\n]*\n([^\n]+)\n```/.exec(readme);
  expect(m, "the README's test block").not.toBeNull();
  return m![1]!.trim();
}

describe("the README's test command", () => {
  it("is what .ci/run calls, and .ci/run installs and starts nothing itself", () => {
    const command = readmeTestCommand();
    expect(command).toBe("npm ci && npm test");
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    const lines = ci.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
    expect(lines).toContain(command);
    // Everything else is the shell's set-up and the checks after the tests.
    expect(lines.filter((l) => l !== command)).toEqual(["set -euo pipefail", 'cd "$(dirname "$0")/.."', "npm run typecheck", "npm run lint"]);
  });

  it("installs the Debian packages first (pretest), and the README names every one of them", () => {
    expect(pkg.scripts.pretest).toBe("bun test/setup/system-packages.ts");
    for (const n of SYSTEM_NEEDS) expect(readme, n.pkg).toContain(`\`${n.pkg}\``);
    expect(SYSTEM_NEEDS.map((n) => n.pkg)).toContain("postgresql");
  });

  it("not root: stops at once with one line naming the exact apt-get command", async () => {
    // Not root (nobody, when the tests run as root), with no program on the PATH: what a user without the packages meets.
    const asUser = process.getuid?.() === 0 ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] : [];
    const r = await runToEnd([...asUser, process.execPath, join(ROOT, "test/setup/system-packages.ts")], {
      env: { PATH: "/nonexistent" },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    const m = /^error: the tests need Debian packages that are missing; install them as root with: apt-get update && apt-get install -y --no-install-recommends ([a-z0-9 .+-]+)$/.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    // Those found through the PATH are missing here.
    for (const p of ["prometheus", "openssl", "qemu-user", "lintian", "fakeroot"]) expect(m![1]!.split(" ")).toContain(p);
  });
});

describe("the closing summary line", () => {
  it("counts tests kept from running by a failed hook, and files that did not load, as failures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-summary-"));
    dirs.push(dir);
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    writeFileSync(join(dir, "a.check.ts"), `import { it, expect } from "vitest";\nit("one", () => expect(1).toBe(1));\nit("two", () => expect(2).toBe(2));\n`);
    writeFileSync(
      join(dir, "b.check.ts"),
      `import { beforeAll, it, expect } from "vitest";\nbeforeAll(() => { throw new Error("no server"); });\nfor (const n of [1, 2, 3]) it("needs the server " + n, () => expect(n).toBe(n));\n`,
    );
    writeFileSync(join(dir, "c.check.ts"), `import "./missing-module.ts";\nimport { it } from "vitest";\nit("never collected", () => {});\n`);
    // The project's own reporters, from its configuration.
    writeFileSync(
      join(dir, "vitest.config.ts"),
      `import root from ${JSON.stringify(join(ROOT, "vitest.config.ts"))};\nexport default { test: { include: ["*.check.ts"], pool: "forks", reporters: root.test.reporters.filter((r) => typeof r === "object") } };\n`,
    );
    const r = await runToEnd([process.execPath, "--bun", join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", join(dir, "vitest.config.ts")], { cwd: dir, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n").at(-1)).toBe("vitest: 2 passed, 4 failed, 0 skipped");
  }, 90_000);
});

/** A folder of vitest files run with the project's own reporters and worker setup, under projects named "t". */
function checkFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "outpost-stall-"));
  dirs.push(dir);
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, "vitest.config.ts"),
    `import root from ${JSON.stringify(join(ROOT, "vitest.config.ts"))};\nexport default { test: { pool: "forks", maxWorkers: 2, setupFiles: [${JSON.stringify(join(ROOT, "test/setup/worker-pid.ts"))}], reporters: root.test.reporters.filter((r) => typeof r === "object"), projects: [{ extends: true, test: { name: "t", include: ["*.check.ts"] } }] } };\n`,
  );
  return dir;
}

/** Whether a process runs `sleep <seconds>` (a stalled file's child left behind). */
function sleeping(seconds: string): boolean {
  return readdirPids().some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "latin1") === `sleep\0${seconds}\0`;
    } catch {
      return false;
    }
  });
}

function readdirPids(): string[] {
  return readdirSync("/proc").filter((n) => /^\d+$/.test(n));
}

// A worker blocked in a synchronous wait: vitest's own timeouts cannot fire there.
const hangOnce = (seconds: string) =>
  `import { existsSync, writeFileSync } from "node:fs";\nimport { spawnSync } from "node:child_process";\nimport { it, expect } from "vitest";\nit("waits", () => {\n  const mark = import.meta.dirname + "/ran-once";\n  if (!existsSync(mark)) { writeFileSync(mark, ""); spawnSync("sleep", ["${seconds}"]); }\n  expect(1).toBe(1);\n});\n`;

describe("a file whose worker stops answering", () => {
  const env = { TEST_STALL_MINUTES: "0.1" };

  it("is named, killed with what it started, and run once more: the suite passes if it passes then", async () => {
    const dir = checkFolder({ "a.check.ts": `import { it, expect } from "vitest";\nit("one", () => expect(1).toBe(1));\n`, "b.check.ts": hangOnce("937") });
    const r = await runToEnd([process.execPath, join(ROOT, "test/setup/run-suite.ts")], { cwd: dir, env, timeoutMs: 90_000 });
    expect(r.stderr).toMatch(/stalled: b\.check\.ts \(project t\) has run for .*, in test "b\.check\.ts > waits"; its worker is \d+/);
    expect(r.stderr).toMatch(/pid \d+ \(parent \d+\) state \S+ wchan \S+: sleep 937/);
    expect(existsSync(join(dir, "ran-once"))).toBe(true);
    expect(r.stdout).toContain("re-running once the file that stalled:");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("vitest: 2 passed, 0 failed, 0 skipped (1 file(s) stalled, killed and re-run once)");
    expect(r.code).toBe(0);
    expect(sleeping("937")).toBe(false);
  }, 120_000);

  it("fails the suite, without a second run, when other tests failed too", async () => {
    const dir = checkFolder({ "a.check.ts": `import { it, expect } from "vitest";\nit("one", () => expect(1).toBe(2));\n`, "b.check.ts": hangOnce("938") });
    const r = await runToEnd([process.execPath, join(ROOT, "test/setup/run-suite.ts")], { cwd: dir, env, timeoutMs: 90_000 });
    expect(r.stderr).toContain("stalled: b.check.ts");
    expect(r.stdout).not.toContain("re-running once");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("1 file(s) stalled and other tests failed: not re-run");
    expect(r.code).toBe(1);
    expect(sleeping("938")).toBe(false);
  }, 120_000);
});
