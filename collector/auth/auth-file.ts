import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import { OptionError } from "../../src/config/options.ts";
import { describeIssues } from "../../src/http/validate.ts";

/**
 * The credentials file (--auth-file): hashed secrets only, documented in docs/security.md.
 * A user has exactly one role: tenants (HTTP, those tenants), admin (HTTP, every tenant and the
 * cross-tenant paths), agent (MQTT, one tenant's one feed) or collector (an external broker's
 * collector account, for the generated Mosquitto files).
 */
export const AUTH_FILE_VERSION = 1;

/**
 * What is wrong with a user name, if anything. ":" separates user and password in Basic auth
 * and in Mosquitto's password_file; blanks and control characters would break Mosquitto's
 * acl_file lines.
 */
export function userNameProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if (name.length > 128) return "is longer than 128 characters";
  if (/[:\s\p{Cc}]/u.test(name)) return "must not contain ':', blanks or control characters";
  return undefined;
}

const label = z.string().min(1).max(256);

const tenantList = z.array(label).min(1, "names at least one tenant");
const argon2 = z.string().startsWith("$argon2", "is not an argon2 hash (made by `auth add`)");
const mosquittoHash = z.string().regex(/^\$7\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/, "is not a Mosquitto $7$ hash");

const userSchema = z
  .object({
    password: argon2,
    tenants: tenantList.optional(),
    admin: z.literal(true).optional(),
    agent: z.object({ tenant: label, feed: label }).strict().optional(),
    collector: z.literal(true).optional(),
    /** The same secret in Mosquitto's own format, for `auth mosquitto-files` (MQTT roles only). */
    mosquitto: mosquittoHash.optional(),
    created: z.string().optional(),
  })
  .strict()
  .refine((u) => [u.tenants, u.admin, u.agent, u.collector].filter((r) => r !== undefined).length === 1, "has exactly one of tenants, admin, agent or collector");

const tokenSchema = z
  .object({
    hash: z.string().regex(/^hmac-sha256\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/, "is not a token hash (made by `auth token`)"),
    tenants: tenantList.optional(),
    admin: z.literal(true).optional(),
    name: label.optional(),
    created: z.string().optional(),
  })
  .strict()
  .refine((t) => (t.tenants === undefined) !== (t.admin === undefined), "has exactly one of tenants or admin");

const fileSchema = z
  .object({
    outpostAuth: z.literal(AUTH_FILE_VERSION, `must be ${AUTH_FILE_VERSION} (the format version)`),
    users: z
      .record(z.string(), userSchema)
      .default({})
      .superRefine((users, ctx) => {
        for (const n of Object.keys(users)) {
          const why = userNameProblem(n);
          if (why) ctx.addIssue({ code: "custom", path: [n], message: `the user name ${why}` });
        }
      }),
    tokens: z.record(z.string().regex(/^[0-9a-f]{12}$/, "token ids are 12 hex digits"), tokenSchema).default({}),
  })
  .strict();

export type AuthUser = z.output<typeof userSchema>;
export type AuthToken = z.output<typeof tokenSchema>;
export type AuthFile = z.output<typeof fileSchema>;

export function emptyAuthFile(): AuthFile {
  return { outpostAuth: AUTH_FILE_VERSION, users: {}, tokens: {} };
}

/** What a user may do, in words (for `auth list` and logs). */
export function describeRole(u: AuthUser | AuthToken): string {
  if ("agent" in u && u.agent) return `agent of feed ${u.agent.tenant}/${u.agent.feed}`;
  if ("collector" in u && u.collector) return "collector (external broker)";
  if (u.admin) return "admin (every tenant)";
  return `tenants ${u.tenants?.join(",")}`;
}

/** Parses and validates the file's text; errors name the file and the field. */
export function parseAuthFile(text: string, path: string): AuthFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new OptionError(`auth file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const r = fileSchema.safeParse(json);
  if (!r.success) throw new OptionError(`auth file ${path}: ${describeIssues(r.error, "file").replace(/^Invalid file: /, "")}`);
  return r.data;
}

/** Reads the file; a missing one is an error unless `missingIsEmpty` (the auth command creating it). */
export function readAuthFile(path: string, missingIsEmpty = false): AuthFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && missingIsEmpty) return emptyAuthFile();
    throw new OptionError(`cannot read auth file ${path}: ${code ?? (e as Error).message}`);
  }
  return parseAuthFile(text, path);
}

/** Whether group or others may read the file (hashes only, but offline guessing is still guessing). */
export function readableByOthers(path: string): boolean {
  try {
    return (statSync(path).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `path` atomically with mode 0600: a temporary file in the same folder,
 * flushed, then renamed over the old one. A collector reading it (SIGHUP) sees the old file
 * or the new one, never half of one.
 */
export function writeFileAtomic(path: string, text: string, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  // The umask may have narrowed the mode further, never widened it; make it exact.
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/**
 * Runs a read-modify-write of the file under an exclusive lock file (`FILE.lock`), so that
 * two `auth` commands run at once (provisioning many agents in parallel) cannot lose each
 * other's changes. A lock older than 30 s is a crashed command's and is taken over.
 */
export async function withAuthFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new OptionError(`cannot lock ${path}: ${(e as Error).message}`);
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {}
      if (age > 30_000) unlinkSync(lock);
      else if (Date.now() > deadline) throw new OptionError(`${path} is locked by another auth command (${lock}); retry, or remove the lock if no command runs`);
      else await Bun.sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    unlinkSync(lock);
  }
}

/** Writes the file after checking it as a reader will (a bad user name fails here, not at the collector's next start). */
export function writeAuthFile(path: string, file: AuthFile): void {
  const text = `${JSON.stringify(file, null, 2)}\n`;
  parseAuthFile(text, path);
  writeFileAtomic(path, text);
}
