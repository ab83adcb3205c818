/**
 * What authentication costs a request: the same small authenticated read (GET
 * /svc/metrics/metrics of an empty tenant) against a collector without and with --auth-file,
 * with HTTP Basic (verified once, then remembered) and with a bearer token; plus the cost of
 * one argon2id check, paid once per credential per 5 minutes.
 * Run: node_modules/.bin/bun bench/auth-overhead.ts [requests]
 */
import { join } from "node:path";
import { emptyAuthFile, writeAuthFile } from "../collector/auth/auth-file.ts";
import { hashPassword, hashTokenSecret, newToken, verifyPassword } from "../collector/auth/secrets.ts";
import { fmt, latency, row, startCollectorProcess, tempDir } from "./_lib.ts";

const runs = Number(process.argv[2] ?? 2000);
const work = tempDir("outpost-bench-auth-");
try {
  const file = emptyAuthFile();
  file.users.alice = { password: await hashPassword("alice-password"), tenants: ["acme"] };
  const token = newToken();
  file.tokens[token.id] = { hash: hashTokenSecret(token.secret), tenants: ["acme"] };
  const authFile = join(work.path, "auth.json");
  writeAuthFile(authFile, file);

  const argon = await latency(() => verifyPassword("alice-password", file.users.alice!.password), 20, 2);
  row("argon2id check (19 MiB, 2 passes), once per credential", `p50 ${fmt(argon.p50, 1)} ms, p99 ${fmt(argon.p99, 1)} ms`);

  const cases: [string, string[], Record<string, string>][] = [
    ["no --auth-file (loopback)", [], {}],
    ["--auth-file, HTTP Basic (remembered after the first check)", ["--auth-file", authFile], { Authorization: `Basic ${btoa("alice:alice-password")}` }],
    ["--auth-file, bearer token", ["--auth-file", authFile], { Authorization: `Bearer ${token.token}` }],
  ];
  for (const [label, args, headers] of cases) {
    const c = await startCollectorProcess(["--data-dir", join(work.path, `c-${cases.findIndex((x) => x[0] === label)}`), "--mqtt-port", "0", ...args]);
    try {
      const get = async () => {
        const res = await fetch(`${c.url}/svc/metrics/metrics`, { headers: { "Svc-Tenant": "acme", ...headers } });
        if (res.status !== 204) throw new Error(`${label}: answered ${res.status}`);
      };
      const r = await latency(get, runs, 50);
      row(label, `p50 ${fmt(r.p50, 3)} ms, p99 ${fmt(r.p99, 3)} ms (${runs} requests, one at a time)`);
    } finally {
      c.proc.kill("SIGTERM");
      await c.proc.exited;
    }
  }
} finally {
  work.remove();
}
