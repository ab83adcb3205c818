import { fchmodSync, fstatSync, mkdirSync, readlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { formatHelp } from "../../src/config/help.ts";
import { invocation } from "../../src/config/invocation.ts";
import { OptionError, type OptionSpec, type OptionValues, type ParsedOptions, parseOptions } from "../../src/config/options.ts";
import { readSecretOption } from "../../src/config/secret-option.ts";
import type { Subcommand } from "../../src/config/run-program.ts";
import { type AuthFile, type AuthUser, describeRole, readAuthFile, userNameProblem, withAuthFileLock, writeAuthFile, writeFileAtomic } from "./auth-file.ts";
import { renderMosquittoFiles } from "./mosquitto-files.ts";
import { readPasswordFromStdin } from "./password-input.ts";
import type { AuthAction } from "./auth-action.ts";
import { releaseKeyActions } from "./release-key-cli.ts";
import { generatePassword, hashPassword, hashTokenSecret, mosquittoHash, newToken } from "./secrets.ts";

/** Environment variables OUTPOST_AUTH_<OPTION>; the file is OUTPOST_AUTH_FILE, as for the collector. */
const ENV = "OUTPOST_AUTH";
const authFileSpec: OptionSpec = { name: "auth-file", kind: "string", env: "OUTPOST_AUTH_FILE", help: "the credentials file (created when missing, written 0600)" };
const roleSpecs: OptionSpec[] = [
  { name: "tenants", kind: "list", help: "HTTP credential holding these tenants (comma-separated)" },
  { name: "admin", kind: "boolean", help: "HTTP credential holding every tenant and the cross-tenant admin paths" },
];

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Prints a secret once on standard output. Redirected into a new file (`> web-1.pw`), the shell
 * made that file with the umask's mode, 0644 as a rule, where every user could read it: an empty
 * file of this user's is made 0600 before the secret goes in, and said so; any other file that
 * others can read gets a warning.
 */
function printSecret(secret: string): void {
  try {
    const st = fstatSync(1);
    if (st.isFile() && (st.mode & 0o077) !== 0) {
      let where = "standard output";
      try {
        where = readlinkSync("/proc/self/fd/1");
      } catch {}
      if (st.size === 0 && st.uid === process.getuid?.()) {
        fchmodSync(1, 0o600);
        say(`made ${where} mode 600: it holds a secret`);
      } else {
        say(`warning: ${where} can be read by other users (mode ${(st.mode & 0o777).toString(8)}): chmod 600 ${where}`);
      }
    }
  } catch {}
  process.stdout.write(`${secret}\n`);
}

function required(v: OptionValues, name: string): string {
  const s = v[name] === undefined ? "" : String(v[name]).trim();
  if (s === "") throw new OptionError(`--${name} is required (see --help)`);
  return s;
}

/** --tenants or --admin (for users also --feed or --collector): exactly one. */
function roleOf(v: OptionValues, mqttRoles: boolean): Pick<AuthUser, "tenants" | "admin" | "agent" | "collector"> {
  const roles: Pick<AuthUser, "tenants" | "admin" | "agent" | "collector">[] = [];
  const tenants = (v.tenants as string[] | undefined) ?? [];
  if (tenants.length > 0) roles.push({ tenants: [...new Set(tenants)] });
  if (v.admin === true) roles.push({ admin: true });
  if (mqttRoles && v.feed !== undefined) {
    const s = String(v.feed);
    const slash = s.indexOf("/");
    if (slash <= 0 || slash === s.length - 1) throw new OptionError(`--feed: "${s}" is not TENANT/FEED`);
    roles.push({ agent: { tenant: s.slice(0, slash), feed: s.slice(slash + 1) } });
  }
  if (mqttRoles && v.collector === true) roles.push({ collector: true });
  const names = mqttRoles ? "--tenants, --admin, --feed or --collector" : "--tenants or --admin";
  if (roles.length !== 1) throw new OptionError(`give exactly one of ${names}`);
  return roles[0]!;
}

async function passwordOf(v: OptionValues, origin: ParsedOptions["origin"]): Promise<{ password: string; generated: boolean }> {
  if (origin.password === "flag") {
    say("warning: --password is visible to other users (ps) and stays in your shell history; prefer --password-file, OUTPOST_AUTH_PASSWORD or typing it when asked");
  }
  const given = readSecretOption(v, "password");
  if (given !== undefined && v["generate-password"] === true) throw new OptionError("give a password or --generate-password, not both");
  if (given !== undefined) return { password: given, generated: false };
  if (v["generate-password"] === true) return { password: generatePassword(), generated: true };
  return { password: await readPasswordFromStdin(), generated: false };
}

function load(v: OptionValues, create: boolean): { path: string; file: AuthFile } {
  const path = required(v, "auth-file");
  return { path, file: readAuthFile(path, create) };
}

const actions: Record<string, AuthAction> = {
  add: {
    writes: true,
    summary: "add a user: --user U (--tenants a,b | --admin | --feed TENANT/FEED | --collector), password from --password-file, OUTPOST_AUTH_PASSWORD, --generate-password or standard input",
    options: [
      authFileSpec,
      { name: "user", kind: "string", help: "user name (no ':' or blanks); an agent's user name is its MQTT username" },
      // Accepted as a flag because the issue's examples use it; a warning says why not to.
      { name: "password", kind: "string", help: "the password (visible in ps: prefer the environment, --password-file or the prompt)" },
      { name: "password-file", kind: "string", help: "file whose first line is the password" },
      { name: "generate-password", kind: "boolean", help: "generate a random password and print it once on standard output" },
      ...roleSpecs,
      { name: "feed", kind: "string", help: "an agent's credential: TENANT/FEED, that tenant's one feed, on MQTT only" },
      { name: "collector", kind: "boolean", help: "the collector's account on an external broker (for mosquitto-files)" },
      { name: "replace", kind: "boolean", help: "replace the user if it exists (new password and role)" },
    ],
    async run(v, origin) {
      const { path, file } = load(v, true);
      const user = required(v, "user");
      const bad = userNameProblem(user);
      if (bad) throw new OptionError(`--user: '${user}' ${bad}`);
      const role = roleOf(v, true);
      const existed = Object.hasOwn(file.users, user);
      if (existed && v.replace !== true) throw new OptionError(`user '${user}' exists: remove it first or pass --replace`);
      const { password, generated } = await passwordOf(v, origin);
      const mqtt = role.agent !== undefined || role.collector !== undefined;
      const entry: AuthUser = { password: await hashPassword(password), ...role, ...(mqtt ? { mosquitto: mosquittoHash(password) } : {}), created: new Date().toISOString() };
      file.users[user] = entry;
      writeAuthFile(path, file);
      say(`${existed ? "replaced" : "added"} user '${user}': ${describeRole(entry)} (in ${path}; send the collector SIGHUP to apply)`);
      if (generated) printSecret(password);
    },
  },
  token: {
    writes: true,
    summary: "create a bearer token for --tenants a,b or --admin; printed once, only its hash is kept",
    options: [authFileSpec, ...roleSpecs, { name: "name", kind: "string", help: "what the token is for (e.g. grafana), shown by list" }],
    async run(v) {
      const { path, file } = load(v, true);
      const role = roleOf(v, false);
      let t = newToken();
      while (Object.hasOwn(file.tokens, t.id)) t = newToken();
      const name = v.name === undefined ? undefined : String(v.name);
      file.tokens[t.id] = { hash: hashTokenSecret(t.secret), ...role, ...(name ? { name } : {}), created: new Date().toISOString() };
      writeAuthFile(path, file);
      say(`token ${t.id} created for ${describeRole(file.tokens[t.id]!)}; it is shown once, below (send the collector SIGHUP to apply)`);
      printSecret(t.token);
    },
  },
  remove: {
    writes: true,
    summary: "remove a user (--user U) or a token (--token ID)",
    options: [authFileSpec, { name: "user", kind: "string", help: "user to remove" }, { name: "token", kind: "string", help: "id of the token to remove (see list)" }],
    async run(v) {
      const { path, file } = load(v, false);
      const user = v.user === undefined ? undefined : String(v.user);
      const token = v.token === undefined ? undefined : String(v.token).replace(/^outpost_([0-9a-f]{12})_.*$/, "$1");
      if ((user === undefined) === (token === undefined)) throw new OptionError("give --user or --token");
      if (user !== undefined) {
        if (!Object.hasOwn(file.users, user)) throw new OptionError(`no user '${user}' in ${path}`);
        delete file.users[user];
      } else {
        if (!Object.hasOwn(file.tokens, token!)) throw new OptionError(`no token '${token}' in ${path}`);
        delete file.tokens[token!];
      }
      writeAuthFile(path, file);
      say(`removed ${user !== undefined ? `user '${user}'` : `token ${token}`} from ${path} (send the collector SIGHUP to apply)`);
    },
  },
  list: {
    writes: false,
    summary: "list users and tokens with their roles (never secrets)",
    options: [authFileSpec],
    async run(v) {
      const { file } = load(v, false);
      const lines = [
        ...Object.entries(file.users).map(([n, u]) => `user  ${n}  ${describeRole(u)}`),
        ...Object.entries(file.tokens).map(([id, t]) => `token ${id}  ${describeRole(t)}${t.name ? `  (${t.name})` : ""}${t.created ? `  created ${t.created}` : ""}`),
      ];
      process.stdout.write(lines.length ? `${lines.join("\n")}\n` : "");
    },
  },
  "mosquitto-files": {
    writes: false,
    summary: "write Mosquitto's password_file, acl_file and a mosquitto.conf snippet for the agents' and collector's credentials",
    options: [
      authFileSpec,
      { name: "out-dir", kind: "string", help: "folder to write passwords, acl and outpost.conf into" },
      { name: "topic-prefix", kind: "string", default: "svc", help: "first topic level, as the collector's --topic-prefix" },
      { name: "listener", kind: "string", default: "1883", help: "Mosquitto listener the credentials apply to: PORT or 'PORT ADDRESS'" },
      { name: "tls-cert", kind: "string", help: "PEM certificate for that listener (MQTT over TLS; Mosquitto's certfile)" },
      { name: "tls-key", kind: "string", help: "PEM private key of --tls-cert (Mosquitto's keyfile)" },
    ],
    async run(v) {
      const { file } = load(v, false);
      const dir = resolve(required(v, "out-dir"));
      const paths = { passwordFile: join(dir, "passwords"), aclFile: join(dir, "acl") };
      const listener = String(v.listener ?? "1883").trim();
      if (!/^\d{1,5}( \S+)?$/.test(listener)) throw new OptionError(`--listener: "${listener}" is not PORT or 'PORT ADDRESS'`);
      const certFile = v["tls-cert"] === undefined ? undefined : resolve(String(v["tls-cert"]));
      const keyFile = v["tls-key"] === undefined ? undefined : resolve(String(v["tls-key"]));
      if ((certFile === undefined) !== (keyFile === undefined)) throw new OptionError("--tls-cert and --tls-key go together");
      const out = renderMosquittoFiles(file, String(v["topic-prefix"] ?? "svc"), paths, { listener, certFile, keyFile });
      mkdirSync(dir, { recursive: true });
      writeFileAtomic(paths.passwordFile, out.passwordFile);
      writeFileAtomic(paths.aclFile, out.aclFile);
      writeFileAtomic(join(dir, "outpost.conf"), out.conf, 0o644);
      say(`wrote ${paths.passwordFile}, ${paths.aclFile} and ${join(dir, "outpost.conf")}: ${out.agents} agents, ${out.collectors} collector accounts`);
      say("put outpost.conf in Mosquitto's conf.d (or include it), make passwords and acl readable by the mosquitto user (chown mosquitto:), and reload Mosquitto (SIGHUP)");
    },
  },
  ...releaseKeyActions,
};

const USAGE = `Usage: ${invocation("collector", "collector")} auth <command> --auth-file FILE [options]

Manages the collector's credentials file (docs/security.md) and the release key of agent
upgrades (docs/fleet.md). Commands:
${Object.entries(actions)
  .map(([n, a]) => `  ${n.padEnd(16)}${a.summary}`)
  .join("\n")}`;

/** `collector auth ...`: the credentials file's commands. */
export const authCommand: Subcommand = {
  summary: "manage the credentials file (--auth-file): add, remove, token, list, mosquitto-files; the release key: release-key, sign",
  async run(argv) {
    const name = argv[0];
    const action = name === undefined ? undefined : actions[name];
    if (!action) {
      if (name === undefined || name === "--help" || name === "-h") return void process.stdout.write(`${USAGE}\n`);
      throw new OptionError(`unknown auth command '${name}' (use ${Object.keys(actions).join(", ")})`);
    }
    // Each action has its own options, but the variables are shared (OUTPOST_AUTH_PASSWORD for
    // add, not for list): one action does not refuse another's.
    const parsed = parseOptions({ specs: action.options, envPrefix: ENV, otherEnvPrefixes: [`${ENV}_`] }, argv.slice(1), process.env);
    if (parsed.help) return void process.stdout.write(formatHelp(`Usage: ${invocation("collector", "collector")} auth ${name} [options]\n\n${action.summary}`, action.options, ENV));
    if (parsed.positionals.length > 0) throw new OptionError(`unexpected argument "${parsed.positionals[0]}" (see auth ${name} --help)`);
    const path = parsed.values["auth-file"] === undefined ? "" : String(parsed.values["auth-file"]).trim();
    if (action.writes && path !== "") await withAuthFileLock(path, () => action.run(parsed.values, parsed.origin));
    else await action.run(parsed.values, parsed.origin);
  },
};
