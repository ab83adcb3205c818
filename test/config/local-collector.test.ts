/**
 * The file in which a collector tells agents of the same user on the same machine where its
 * broker listens (src/config/local-collector.ts): found when it is this user's own, private and
 * alive; refused when another user could have written it or when it points off the machine.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findLocalCollector, localCollectorFile, publishLocalCollector } from "../../src/config/local-collector.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function runtimeDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-runtime-test-"));
  dirs.push(d);
  return d;
}
const info = { broker: "mqtt://127.0.0.1:41234", http: "http://127.0.0.1:41235" };

describe("the local collector's file", () => {
  it("lives in $XDG_RUNTIME_DIR/outpost, else in a folder of this user's in the temporary folder", () => {
    expect(localCollectorFile({ XDG_RUNTIME_DIR: "/run/user/1000" })).toBe("/run/user/1000/outpost/collector.json");
    expect(localCollectorFile({})).toBe(join(tmpdir(), `outpost-${process.getuid!()}`, "collector.json"));
    // A relative value is not a runtime folder (the XDG specification asks for an absolute path).
    expect(localCollectorFile({ XDG_RUNTIME_DIR: "run" })).toBe(join(tmpdir(), `outpost-${process.getuid!()}`, "collector.json"));
  });

  it("published by a collector: a private folder and file, found by the agent, removed at the end", () => {
    const file = localCollectorFile({ XDG_RUNTIME_DIR: runtimeDir() });
    const p = publishLocalCollector(info, file);
    const found = findLocalCollector(file);
    expect(found).toEqual({ found: { ...info, pid: process.pid }, file });
    expect(Bun.spawnSync(["stat", "-c", "%a", file, join(file, "..")]).stdout.toString().split("\n").slice(0, 2)).toEqual(["600", "700"]);
    p.remove();
    expect(findLocalCollector(file)).toBeUndefined();
  });

  it("a folder another user made first (or one open to others) is refused: nobody else can point an agent elsewhere", () => {
    const file = localCollectorFile({ XDG_RUNTIME_DIR: runtimeDir() });
    const dir = join(file, "..");
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, JSON.stringify({ ...info, pid: process.pid }), { mode: 0o600 });
    chmodSync(dir, 0o777);
    expect(findLocalCollector(file)).toEqual({ problem: `${dir} is open to other users (mode 777)`, file });
    expect(() => publishLocalCollector(info, file)).toThrow(/open to other users/);
    chmodSync(dir, 0o700);
    chownSync(dir, 65534, 65534);
    expect(findLocalCollector(file)).toEqual({ problem: `${dir} belongs to user 65534, not to this user (${process.getuid!()})`, file });
    expect(() => publishLocalCollector(info, file)).toThrow(/belongs to user 65534/);
  });

  it("a file writable by others, a link, a broker off this machine: refused", () => {
    const file = localCollectorFile({ XDG_RUNTIME_DIR: runtimeDir() });
    publishLocalCollector(info, file);
    chmodSync(file, 0o666);
    expect(findLocalCollector(file)).toMatchObject({ problem: expect.stringMatching(/open to other users \(mode 666\)/) });
    rmSync(file);
    const elsewhere = join(runtimeDir(), "planted.json");
    writeFileSync(elsewhere, JSON.stringify({ ...info, pid: process.pid }), { mode: 0o600 });
    symlinkSync(elsewhere, file);
    expect(findLocalCollector(file)).toMatchObject({ problem: `${file} is a symbolic link` });
    rmSync(file);
    publishLocalCollector({ ...info, broker: "mqtt://203.0.113.7:1883" }, file);
    expect(findLocalCollector(file)).toMatchObject({ problem: expect.stringMatching(/names a broker off this machine/) });
  });

  it("a collector that died without removing it (killed) is not there", async () => {
    const file = localCollectorFile({ XDG_RUNTIME_DIR: runtimeDir() });
    const p = spawn("true");
    const pid = p.pid!;
    await new Promise((resolve) => p.on("exit", resolve));
    publishLocalCollector(info, file);
    writeFileSync(file, JSON.stringify({ ...info, pid }), { mode: 0o600 });
    expect(findLocalCollector(file)).toBeUndefined();
  });
});
