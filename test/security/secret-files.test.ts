/**
 * Secrets in files (issue 25): the README's `auth add … --generate-password > web-1.pw` leaves a
 * file only its owner can read; the agent refuses a password file other users can read, as ssh
 * refuses an open private key, or uses it with a warning when told to.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROGRAMS, Running, run, runToEnd } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-secret-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The agent with a password file, on a TLS broker URL without a port where nothing listens (no connection is made). */
const agentArgs = (pwFile: string, ...extra: string[]) => [
  ...["--tenant", "acme", "--feed", "web-1", "--username", "web-1", "--password-file", pwFile],
  ...["--broker", "mqtts://127.0.0.1", "--data-dir", join(dir, `agent-${Math.random().toString(36).slice(2)}`), "--listen", "", "--host-metrics", "false"],
  ...extra,
];

describe("secret files", () => {
  it("`auth add … --generate-password > web-1.pw` (a shell redirect under umask 022): the file ends up 0600, and the command says so", async () => {
    const r = await runToEnd(["sh", "-c", `umask 022; "$0" "$1" auth add --auth-file auth.json --user web-1 --feed acme/web-1 --generate-password > web-1.pw`, process.execPath, PROGRAMS.collector], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(dir, "web-1.pw")).mode & 0o777).toBe(0o600);
    expect(r.stderr).toContain(`made ${join(dir, "web-1.pw")} mode 600: it holds a secret`);
    // Appended to a file that holds other things: not touched, but the user is told.
    const shared = join(dir, "notes.txt");
    writeFileSync(shared, "notes\n", { mode: 0o644 });
    chmodSync(shared, 0o644);
    const t = await runToEnd(["sh", "-c", `"$0" "$1" auth token --auth-file auth.json --tenants acme >> notes.txt`, process.execPath, PROGRAMS.collector], { cwd: dir });
    expect(t.code).toBe(0);
    expect(t.stderr).toContain(`warning: ${shared} can be read by other users (mode 644): chmod 600 ${shared}`);
  });

  it("the agent refuses a password file every user can read, in one line saying what to run", async () => {
    const pw = join(dir, "open.pw");
    writeFileSync(pw, "secret\n");
    chmodSync(pw, 0o644);
    const r = await run("agent", agentArgs(pw));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --password-file: ${pw} can be read by every user of this machine (mode 644): run chmod 600 ${pw} (or pass --allow-open-secret-files to use it anyway, with a warning)\n`,
    );
    // Its own file open to its group is refused too, as ssh refuses such a key.
    chmodSync(pw, 0o640);
    expect((await run("agent", agentArgs(pw))).stderr).toMatch(/is open to its group or other users \(mode 640\)/);
  });

  it("with --allow-open-secret-files it starts and warns; a root-owned file its group reads (as the packages lay out) needs no flag", async () => {
    const pw = join(dir, "open2.pw");
    writeFileSync(pw, "secret\n");
    chmodSync(pw, 0o644);
    const a = Running.start("agent", agentArgs(pw, "--allow-open-secret-files"));
    try {
      expect(await a.waitForLine(/WARN .*--password-file: .* can be read by every user/)).toContain("used because of --allow-open-secret-files");
      // A broker URL without a port: the scheme's default, and the log says which.
      expect(await a.waitForLine(/names no port/)).toContain("--broker mqtts://127.0.0.1 names no port: using 8883, the default of MQTT over TLS");
    } finally {
      await a.stop("SIGTERM");
    }
    // Another owner's file that only its group reads (0640 root:outpost, read by the service user).
    const svc = join(dir, "svc.pw");
    writeFileSync(svc, "secret\n");
    chmodSync(svc, 0o640);
    chownSync(svc, 65534, 0);
    const b = Running.start("agent", agentArgs(svc));
    try {
      await b.waitForLine(/agent started/);
      expect(b.lines.join("\n")).not.toMatch(/allow-open-secret-files/);
    } finally {
      await b.stop("SIGTERM");
    }
  });
});
