/**
 * The tests' own PostgreSQL server: a cluster made with `initdb` in a private temporary folder,
 * listening on 127.0.0.1 on an ephemeral port with a random password, started for one test run
 * and stopped at its end — never a server that must already run on 5432.
 *
 * The run's folder is made by the vitest global setup (test/setup/postgres.global.ts), which
 * names it in TEST_POSTGRES_DIR and removes it with the server. The cluster itself is made on
 * first use, by whichever test process asks first (a lock in that folder), so that a run of
 * files that need no PostgreSQL pays nothing for it. Outside vitest (a bench), the caller's
 * process owns a folder of its own. TEST_POSTGRES_URL names another server instead (a URL to
 * its maintenance database, superuser).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

/** The prefix of run folders in the temporary folder (stale ones are cleaned by the next run). */
const RUN_PREFIX = "outpost-test-pg-";
/** The Debian packages that bring initdb and postgres (test/setup/system-packages.ts installs them). */
export const POSTGRES_PACKAGE = "postgresql";

/** The folder holding initdb and postgres: Debian's newest /usr/lib/postgresql/N/bin, else the PATH. */
export function postgresBinDir(): string | undefined {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, "bin/initdb")) && existsSync(join(debian, v, "bin/postgres")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  const initdb = Bun.which("initdb");
  if (initdb && existsSync(join(initdb, "../postgres"))) return join(initdb, "..");
  return undefined;
}

/** The user the server runs as: PostgreSQL refuses to run as root, so root hands it to `postgres` (or `nobody`). */
function serverUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const r = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const g = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()), name };
  }
  throw new Error("running as root, and neither the user postgres nor nobody exists to run PostgreSQL as");
}

/** argv run as the server's user (setpriv, from util-linux: no PAM session, no shell). */
function asServerUser(argv: string[]): string[] {
  const u = serverUser();
  return u ? ["setpriv", `--reuid=${u.uid}`, `--regid=${u.gid}`, "--clear-groups", "--", ...argv] : argv;
}

/** Makes a run folder owned by this process (its pid in `owner`), cleaning up after runs that were killed. */
export function makeRunFolder(): string {
  removeStaleRunFolders();
  const dir = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  writeFileSync(join(dir, "owner"), String(process.pid));
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Run folders whose owner died without stopping its server (a killed run): stopped and removed. */
function removeStaleRunFolders(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const owner = Number(readFileSync(join(dir, "owner"), "utf8"));
      if (owner > 0 && alive(owner)) continue;
    } catch {
      // No owner file: a folder being made right now, or not ours to judge.
      continue;
    }
    stopServer(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops the run folder's server, if it started one (immediate shutdown: the data is thrown away). */
export function stopServer(dir: string): void {
  const pidFile = join(dir, "cluster/postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!(pid > 0) || !alive(pid)) return;
  process.kill(pid, "SIGQUIT");
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) Bun.sleepSync(20);
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

function run(argv: string[], what: string): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || r.stdout || "").trim().split("\n").slice(-3).join(" | ")}`);
}

/** initdb, then the server on a free port; resolves its admin URL once it accepts connections. */
async function makeCluster(dir: string): Promise<string> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL server programs (initdb, postgres) on this machine: install the Debian package ${POSTGRES_PACKAGE} (npm test installs it as root)`);
  const cluster = join(dir, "cluster");
  const user = serverUser();
  // The run folder is private (0700) to this user; the server's user may only pass through it.
  if (user) chmodSync(dir, 0o711);
  const password = randomBytes(18).toString("base64url");
  const pwFile = join(dir, "pw");
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(pwFile, user.uid, user.gid);
  mkdirSync(cluster, { mode: 0o700 });
  if (user) chownSync(cluster, user.uid, user.gid);
  run(
    asServerUser([join(bin, "initdb"), "-D", cluster, "-U", "postgres", `--pwfile=${pwFile}`, "--auth-host=scram-sha-256", "--auth-local=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"]),
    "initdb",
  );
  rmSync(pwFile, { force: true });
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const log = openSync(join(dir, "server.log"), "a");
    // Durability is not what these tests are about: no fsync makes every commit cheap.
    const argv = asServerUser([
      join(bin, "postgres"),
      ...["-D", cluster, "-p", String(port)],
      ...["-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${cluster}`],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    ]);
    // Its own session: it outlives the test process that started it, until the run ends.
    const server = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ["ignore", log, log] });
    server.unref();
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    const up = await waitUntilAccepting(url, () => server.exitCode !== null || server.signalCode !== null);
    if (up) return url;
    const tail = readFileSync(join(dir, "server.log"), "utf8").trim().split("\n").slice(-3).join(" | ");
    // Another process may have taken the port between freePort and the server's bind.
    if (attempt >= 3 || !/could not bind|Address already in use/.test(tail)) throw new Error(`the tests' PostgreSQL server did not start: ${tail}`);
  }
}

async function waitUntilAccepting(url: string, exited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) return false;
    const sql = new Bun.SQL(url, { max: 1, connectionTimeout: 2 });
    try {
      await sql.unsafe("SELECT 1");
      return true;
    } catch {
      await Bun.sleep(50);
    } finally {
      await sql.close().catch(() => undefined);
    }
  }
  throw new Error("the tests' PostgreSQL server did not accept connections within 60 s");
}

/**
 * The admin URL of the run's server, made by the first process that asks (the others wait for
 * its URL file). The URL holds the password: it stays in this 0700 folder and in memory.
 */
async function serverOf(dir: string): Promise<string> {
  const urlFile = join(dir, "url");
  const errorFile = join(dir, "error");
  let mine = false;
  try {
    mkdirSync(join(dir, "lock"));
    mine = true;
  } catch {}
  if (mine) {
    try {
      const url = await makeCluster(dir);
      writeFileSync(`${urlFile}.tmp`, url, { mode: 0o600 });
      renameSync(`${urlFile}.tmp`, urlFile);
      return url;
    } catch (e) {
      writeFileSync(errorFile, (e as Error).message);
      throw e;
    }
  }
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (existsSync(urlFile)) return readFileSync(urlFile, "utf8");
    if (existsSync(errorFile)) throw new Error(readFileSync(errorFile, "utf8"));
    await Bun.sleep(50);
  }
  throw new Error(`the tests' PostgreSQL server in ${dir} was not ready within 180 s`);
}

let admin: Promise<string> | undefined;

/** The URL of the tests' PostgreSQL server (superuser, maintenance database), started on first use. */
export function postgresAdminUrl(): Promise<string> {
  if (admin) return admin;
  const given = process.env.TEST_POSTGRES_URL;
  if (given) return (admin = Promise.resolve(given));
  let dir = process.env.TEST_POSTGRES_DIR;
  if (!dir) {
    // Not under vitest's global setup (a bench, a script): a server of this process's own.
    const own = makeRunFolder();
    process.on("exit", () => {
      stopServer(own);
      rmSync(own, { recursive: true, force: true });
    });
    dir = own;
  }
  admin = serverOf(dir);
  return admin;
}
