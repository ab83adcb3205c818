/**
 * `npm run release`, built once for this file (about a minute), then inspected and run: the
 * binaries for both targets (the arm64 agent under qemu-aarch64), the tarballs, the sums, and
 * the .deb packages (fields, contents, lintian, and a whole install → upgrade → remove → purge
 * cycle with dpkg into a scratch root, under fakeroot).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOptions } from "../../agent/config.ts";
import { collectorOptions } from "../../collector/config.ts";
import { elfMachine } from "../../deploy/release/binaries.ts";
import { TARGETS } from "../../deploy/release/runtimes.ts";
import { programOptions } from "../../src/config/run-program.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { portOf, ROOT, Running, runToEnd } from "../helpers/program.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../helpers/remote-write.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const BUN_VERSION = Bun.version;
const out = mkdtempSync(join(tmpdir(), "outpost-release-"));
const scratch = mkdtempSync(join(tmpdir(), "outpost-release-run-"));
let buildLog = "";

const sh = (cmd: string[], cwd = scratch) => runToEnd(cmd, { cwd, timeoutMs: 120_000 });
const file = (name: string) => join(out, name);

/** The identity the packages are built with here (as Debian's tools take it from the environment). */
const MAINTAINER = { DEBFULLNAME: "Outpost Release Test", DEBEMAIL: "release-test@outpost.test" };

beforeAll(async () => {
  const r = await runToEnd([process.execPath, join(ROOT, "deploy/release/main.ts"), "--out", out], { timeoutMs: 600_000, env: MAINTAINER });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  buildLog = r.stdout;
}, 600_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const names = {
  binary: (p: string, t: string) => `outpost-${p}-${VERSION}-${t}`,
  tarball: (p: string, t: string) => `outpost-${p}-${VERSION}-${t}.tar.gz`,
  deb: (p: string, t: keyof typeof TARGETS) => `outpost-${p}_${VERSION}_${TARGETS[t].debArch}.deb`,
};
const PROGRAMS = ["agent", "collector"] as const;
const ALL_TARGETS = Object.keys(TARGETS) as (keyof typeof TARGETS)[];

describe("the release folder", () => {
  it("a release without a maintainer stops at once, saying how to name one", async () => {
    const empty = mkdtempSync(join(tmpdir(), "outpost-release-nobody-"));
    try {
      const r = await runToEnd([process.execPath, join(ROOT, "deploy/release/main.ts"), "--out", join(empty, "out")], {
        env: { HOME: empty, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", DEBFULLNAME: "", DEBEMAIL: "" },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: the packages need a maintainer: pass --maintainer 'Name <address>', set DEBFULLNAME and DEBEMAIL/);
      expect(existsSync(join(empty, "out"))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("holds a binary, a tarball and a .deb per program and target, and their SHA-256 sums", async () => {
    const expected = PROGRAMS.flatMap((p) => ALL_TARGETS.flatMap((t) => [names.binary(p, t), names.tarball(p, t), names.deb(p, t)]));
    expect(readdirSync(out).sort()).toEqual([...expected, "SHA256SUMS"].sort());
    const sums = readFileSync(file("SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.map((l) => l.split("  ")[1]).sort()).toEqual(expected.sort());
    const check = await sh(["sha256sum", "--check", "--strict", "SHA256SUMS"], out);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(buildLog).toMatch(/SHA256SUMS: 12 files; done in [\d.]+ s/);
    // Sizes in the units they are counted in (1024²: MiB), and the packages' maintainer named.
    expect(buildLog).toMatch(/outpost-collector-[\d.]+-linux-arm64: binary [\d.]+ MiB, outpost-collector-[\d.]+-linux-arm64\.tar\.gz [\d.]+ MiB, /);
    expect(buildLog).toContain("maintainer Outpost Release Test <release-test@outpost.test>");
  });

  it("each binary is an executable for its machine", () => {
    for (const p of PROGRAMS) {
      for (const t of ALL_TARGETS) {
        const f = file(names.binary(p, t));
        expect(elfMachine(f), f).toBe(TARGETS[t].elfMachine);
        expect(statSync(f).mode & 0o111).toBe(0o111);
      }
    }
  });
});

/** The commit the build must have baked in. */
function headCommit(): string {
  return Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
}

describe("the binaries run on their own", () => {
  it.each(PROGRAMS)("%s, linux-arm64 under qemu-aarch64: its version and target", async (program) => {
    const v = await sh([...qemuPrefix(), file(names.binary(program, "linux-arm64")), "--version"]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`^outpost-${program} ${VERSION.replace(/\./g, "\\.")} \\(commit \\S+, built \\S+, bun ${BUN_VERSION}, linux-arm64\\)\\n$`));
  });

  it.each(PROGRAMS)("%s, linux-x64: the version and build baked in, and every option explained, from an empty folder", async (program) => {
    const bin = file(names.binary(program, "linux-x64"));
    const v = await sh([bin, "--version"]);
    expect(v.code).toBe(0);
    const m = new RegExp(`^outpost-${program} ${VERSION.replace(/\./g, "\\.")} \\(commit (\\S+), built (\\S+), bun ${BUN_VERSION}, linux-x64\\)\\n$`).exec(v.stdout);
    expect(m, v.stdout).not.toBeNull();
    expect(m![1]!.replace(/-dirty$/, "")).toBe(headCommit());
    expect(Date.now() - Date.parse(m![2]!)).toBeLessThan(3_600_000);
    const help = await sh([bin, "--help"]);
    expect(help.code).toBe(0);
    const specs = programOptions({ options: program === "agent" ? agentOptions : collectorOptions, shutdownTimeout: "10s" });
    // Secrets are no flags (ps would show them): the help names them as variables and file keys.
    for (const o of specs.filter((s) => !s.retired)) expect(help.stdout).toContain(o.secret ? `  ${o.name} (secret: environment or --config file only)` : `--${o.name}`);
    // The binary names itself in its usage lines, commands' included (not `bun collector/main.ts`):
    // here by the release folder's file name, installed (tarball, .deb) as outpost-PROGRAM.
    const self = basename(bin);
    expect(help.stdout.split("\n")[0]).toMatch(new RegExp(`^Usage: ${self} `));
    if (program === "collector") {
      for (const [args, usage] of [
        [["auth", "--help"], `Usage: ${self} auth <command>`],
        [["auth", "add", "--help"], `Usage: ${self} auth add [options]`],
        [["backup", "--help"], `Usage: ${self} backup DIR`],
      ] as const) {
        const r = await sh([bin, ...args]);
        expect(r.stdout.split("\n")[0], args.join(" ")).toContain(usage);
        expect(r.stdout).not.toContain("bun collector/main.ts");
      }
    }
    const installed = await sh([await shipped(program, "linux-x64", "deb"), "--help"]);
    expect(installed.stdout.split("\n")[0]).toMatch(new RegExp(`^Usage: outpost-${program} `));
  });

});

/** qemu-aarch64 with the arm64 C library: the arm64 binaries' prefix. */
function qemuPrefix(): string[] {
  const qemu = Bun.which("qemu-aarch64");
  if (!qemu || !existsSync("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1")) {
    throw new Error("needs qemu-aarch64 (Debian qemu-user) and the arm64 C library (libc6-arm64-cross); npm test installs both");
  }
  return [qemu, "-L", "/usr/aarch64-linux-gnu"];
}

type Form = "binary" | "tarball" | "deb";
const FORMS: Form[] = ["binary", "tarball", "deb"];

/** The program's executable as shipped in `form`: the file itself, or unpacked from its tarball or .deb. */
async function shipped(program: (typeof PROGRAMS)[number], target: keyof typeof TARGETS, form: Form): Promise<string> {
  if (form === "binary") return file(names.binary(program, target));
  const into = join(scratch, `unpacked-${form}-${program}-${target}`);
  mkdirSync(into, { recursive: true });
  if (form === "tarball") {
    expect((await sh(["tar", "-xzf", file(names.tarball(program, target)), "-C", into])).code).toBe(0);
    return join(into, names.binary(program, target), `outpost-${program}`);
  }
  expect((await sh(["dpkg-deb", "-x", file(names.deb(program, target)), into])).code).toBe(0);
  return join(into, "usr/bin", `outpost-${program}`);
}

/**
 * A real job for one target and one form: the collector answers its status, takes a snappy
 * remote-write body and a JSON write and serves them back; the agent of the same target and
 * form delivers points to it over MQTT. Both stop cleanly. Returns the collector's log.
 */
async function realJob(target: keyof typeof TARGETS, form: Form): Promise<void> {
  const prefix = target === "linux-arm64" ? qemuPrefix() : [];
  const run = join(scratch, `job-${target}-${form}-${Math.random().toString(36).slice(2, 8)}`);
  const agentPort = await freePort();
  const mqttPort = await freePort();
  const collector = new Running([...prefix, await shipped("collector", target, form), "--data-dir", join(run, "collector"), "--http-port", "0", "--mqtt-port", String(mqttPort), "--log-level", "debug"], { cwd: scratch });
  let agent: Running | undefined;
  try {
    const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/, 60_000))}`;
    const mqtt = portOf(await collector.waitForLine(/MQTT broker listening/, 60_000));
    expect(mqtt).toBe(mqttPort);
    await collector.waitForLine(/collector ready/, 60_000);
    const status = await fetch(`${url}/svc/metrics/status`);
    expect(status.status).toBe(200);
    expect(((await status.json()) as Record<string, string>).MetricsService).toBe("STARTED");
    const read = async (path: string) => {
      const r = await fetch(`${url}${path}`, { headers: { "Svc-Tenant": "acme" } });
      return r.status === 200 ? ((await r.json()) as { timestamp: number; value: number }[]) : [];
    };

    // Remote write: 200 series × 30 samples, snappy-compressed (literals and back references).
    const t0 = Date.now() - 60_000;
    const series = Array.from({ length: 200 }, (_, s) => ({ labels: { __name__: "rw_job", host: `h${s}` }, samples: Array.from({ length: 30 }, (_, j) => [t0 + j * 1000, s * 100 + j] as [number, number]) }));
    const rw = await fetch(`${url}/api/v1/write`, { method: "POST", body: remoteWriteBody(series), headers: { ...REMOTE_WRITE_HEADERS, "Svc-Tenant": "acme" } });
    expect(rw.status, await rw.clone().text()).toBe(204);
    const h7 = await read(`/svc/metrics/gauges/${encodeURIComponent('rw_job{host="h7"}')}/raw?start=${t0 - 1}&order=ASC&limit=100`);
    expect(h7.map((p) => p.value)).toEqual(Array.from({ length: 30 }, (_, j) => 700 + j));

    // A JSON write.
    const json = await fetch(`${url}/svc/metrics/gauges/raw`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" },
      body: JSON.stringify([{ id: "json.job", dataPoints: [{ timestamp: t0, value: 1.5 }, { timestamp: t0 + 1, value: 2.5 }] }]),
    });
    expect(json.status).toBe(200);
    expect(await read(`/svc/metrics/gauges/json.job/raw?start=${t0 - 1}&order=ASC`)).toEqual([{ timestamp: t0, value: 1.5 }, { timestamp: t0 + 1, value: 2.5 }]);

    // The agent delivers points written to its local API.
    agent = new Running(
      [...prefix, await shipped("agent", target, form), "--tenant", "acme", "--feed", `${form}-1`, "--data-dir", join(run, "agent"), "--broker", `mqtt://127.0.0.1:${mqtt}`, "--listen", `127.0.0.1:${agentPort}`, "--interval", "1s"],
      { cwd: scratch },
    );
    await agent.waitForLine(/connected to broker/, 60_000);
    const t = Date.now();
    const w = await fetch(`http://127.0.0.1:${agentPort}/svc/metrics/gauges/raw`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Svc-Tenant": "acme" },
      body: JSON.stringify([{ id: "agent.job", dataPoints: Array.from({ length: 100 }, (_, i) => ({ timestamp: t - 100 + i, value: i })) }]),
    });
    expect(w.status).toBe(200);
    const points = await waitFor("the agent's points at the collector", async () => {
      const b = await read(`/svc/metrics/gauges/agent.job/raw?start=${t - 1000}&limit=1000`);
      return b.length === 100 ? b : undefined;
    }, 60_000);
    expect(points).toHaveLength(100);
    agent.signal("SIGTERM");
    expect(await agent.exited).toBe(0);
    collector.signal("SIGTERM");
    expect(await collector.exited).toBe(0);
  } finally {
    await agent?.stop();
    await collector.stop();
  }
}

describe("every artefact does a real job: collector and agent, each target, each form", () => {
  for (const target of ALL_TARGETS) it.each(FORMS)(`${target}, from the %s`, (form) => realJob(target, form), 240_000);

  it("the web console is built into the collector's binary", async () => {
    const collector = new Running([file(names.binary("collector", "linux-x64")), "--data-dir", join(scratch, "console"), "--http-port", "0", "--mqtt-port", "0"], { cwd: scratch });
    try {
      const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const script = /src="\.\/(console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`${url}/${script}`)).status).toBe(200);
    } finally {
      await collector.stop("SIGTERM");
    }
  });

  it("the on-site view is built into the agent's binary", async () => {
    const port = await freePort();
    // No collector: the agent serves its page regardless.
    const args = ["--tenant", "acme", "--feed", "site-1", "--data-dir", join(scratch, "on-site"), "--broker", `mqtt://127.0.0.1:${await freePort()}`, "--listen", `127.0.0.1:${port}`];
    const agent = new Running([file(names.binary("agent", "linux-x64")), ...args], { cwd: scratch });
    try {
      await agent.waitForLine(/agent started/, 60_000);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      const script = /src="\.\/(console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      const res = await fetch(`http://127.0.0.1:${port}/${script}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("Local view of feed");
    } finally {
      await agent.stop("SIGTERM");
    }
  });
});

describe("the tarballs", () => {
  it.each(PROGRAMS)("%s: one folder with the binary, its unit, an example configuration and the docs", async (program) => {
    for (const t of ALL_TARGETS) {
      const r = await sh(["tar", "-tvzf", file(names.tarball(program, t))]);
      expect(r.code).toBe(0);
      const dir = names.binary(program, t);
      const entries = r.stdout.trim().split("\n").map((l) => ({ mode: l.split(/\s+/)[0]!, owner: l.split(/\s+/)[1]!, path: l.split(/\s+/).at(-1)! }));
      expect(entries.map((e) => e.path).sort()).toEqual(
        [`${dir}/`, `${dir}/outpost-${program}`, `${dir}/outpost-${program}.service`, `${dir}/${program}.example.toml`, `${dir}/install.md`, `${dir}/operations.md`, `${dir}/security.md`].sort(),
      );
      expect(entries.find((e) => e.path.endsWith(`/outpost-${program}`))!.mode).toBe("-rwxr-xr-x");
      for (const e of entries) expect(e.owner).toBe("0/0");
    }
  });
});

/** `dpkg-deb -f` fields of a package. */
async function fields(deb: string): Promise<Record<string, string>> {
  const r = await sh(["dpkg-deb", "-f", deb]);
  const out: Record<string, string> = {};
  for (const m of r.stdout.matchAll(/^(\S+): (.*)$/gm)) out[m[1]!] = m[2]!;
  return out;
}

describe("the .deb packages", () => {
  it.each(PROGRAMS)("%s: control fields, files, modes, conffile, maintainer scripts and checksums", async (program) => {
    for (const t of ALL_TARGETS) {
      const deb = file(names.deb(program, t));
      expect(await fields(deb)).toMatchObject({
        Package: `outpost-${program}`,
        Version: VERSION,
        Architecture: TARGETS[t].debArch,
        Depends: "libc6 (>= 2.17), adduser",
        Section: "net",
        Maintainer: "Outpost Release Test <release-test@outpost.test>",
      });
      const c = await sh(["dpkg-deb", "-c", deb]);
      const files = c.stdout.trim().split("\n").map((l) => ({ mode: l.split(/\s+/)[0]!, owner: l.split(/\s+/)[1]!, path: l.split(/\s+/).at(-1)!.replace(/^\./, "") }));
      const mode = (p: string) => files.find((f) => f.path === p)?.mode;
      expect(mode(`/usr/bin/outpost-${program}`)).toBe("-rwxr-xr-x");
      expect(mode(`/lib/systemd/system/outpost-${program}.service`)).toBe("-rw-r--r--");
      expect(mode(`/etc/outpost/${program}.toml`)).toBe("-rw-r--r--");
      expect(mode(`/usr/lib/sysusers.d/outpost-${program}.conf`)).toBe("-rw-r--r--");
      expect(mode(`/usr/share/doc/outpost-${program}/copyright`)).toBe("-rw-r--r--");
      for (const f of files) expect(f.owner, f.path).toBe("root/root");

      const x = join(scratch, `x-${program}-${t}`);
      expect((await sh(["dpkg-deb", "-R", deb, x])).code).toBe(0);
      expect(readFileSync(join(x, "DEBIAN/conffiles"), "utf8")).toBe(`/etc/outpost/${program}.toml\n`);
      for (const s of ["postinst", "prerm", "postrm"]) {
        expect(statSync(join(x, "DEBIAN", s)).mode & 0o777).toBe(0o755);
        expect((await sh(["sh", "-n", join(x, "DEBIAN", s)])).code).toBe(0);
        expect(readFileSync(join(x, "DEBIAN", s), "utf8")).not.toContain("@PACKAGE@");
      }
      // The unit and configuration are the repository's, unchanged.
      expect(readFileSync(join(x, `lib/systemd/system/outpost-${program}.service`), "utf8")).toBe(readFileSync(join(ROOT, `deploy/systemd/outpost-${program}.service`), "utf8"));
      expect(readFileSync(join(x, `etc/outpost/${program}.toml`), "utf8")).toBe(readFileSync(join(ROOT, `deploy/config/${program}.toml`), "utf8"));
      const md5 = await sh(["md5sum", "--check", "--strict", "--quiet", "DEBIAN/md5sums"], x);
      expect(md5.code, md5.stdout + md5.stderr).toBe(0);
      rmSync(x, { recursive: true, force: true });
    }
  }, 120_000);

  it("lintian finds nothing to report (overrides: only what the Bun runtime executable brings)", async () => {
    const lintian = Bun.which("lintian");
    if (!lintian) throw new Error("lintian is not installed (Debian package lintian; .ci/run installs it)");
    const r = await sh([lintian, "--fail-on", "error,warning", file(names.deb("collector", "linux-x64")), file(names.deb("agent", "linux-arm64"))]);
    const findings = (r.stdout + r.stderr).split("\n").filter((l) => /^[EW]: /.test(l));
    expect(findings).toEqual([]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 120_000);
});

describe("installing, upgrading, removing and purging the packages (dpkg into a scratch root)", () => {
  const root = join(scratch, "root");
  const state = join(scratch, "fakeroot.state");
  /** dpkg on the scratch root, its maintainer scripts run without chroot ($DPKG_ROOT), as fake root. */
  const dpkg = (...args: string[]) =>
    sh(["fakeroot", "-i", state, "-s", state, "dpkg", `--root=${root}`, "--force-script-chrootless", "--force-depends", "--force-confdef", "--force-confold", `--log=${join(scratch, "dpkg.log")}`, ...args]);
  /** ls -ln of a path as the fake root sees it: mode, uid, gid. */
  const owner = async (path: string) => {
    const r = await sh(["fakeroot", "-i", state, "stat", "-c", "%a %u %g", join(root, path)]);
    return r.stdout.trim();
  };

  /** The same package as a later version (small: the binary replaced by a marker), to upgrade to. */
  async function laterVersion(program: string): Promise<string> {
    const x = join(scratch, `upgrade-${program}`);
    expect((await sh(["dpkg-deb", "-R", file(names.deb(program, "linux-x64")), x])).code).toBe(0);
    writeFileSync(join(x, `usr/bin/outpost-${program}`), "#!/bin/sh\necho later\n");
    const control = join(x, "DEBIAN/control");
    writeFileSync(control, readFileSync(control, "utf8").replace(/^Version: .*$/m, "Version: 99.0.0"));
    // The md5sums must describe the new binary.
    const sums = await sh(["sh", "-c", "find usr etc lib -type f -exec md5sum {} + > DEBIAN/md5sums"], x);
    expect(sums.code).toBe(0);
    const deb = join(scratch, `outpost-${program}_99.0.0_amd64.deb`);
    expect((await sh(["dpkg-deb", "--root-owner-group", "-Znone", "--build", x, deb])).code).toBe(0);
    return deb;
  }

  beforeAll(() => {
    mkdirSync(join(root, "var/lib/dpkg/info"), { recursive: true });
    mkdirSync(join(root, "var/lib/dpkg/updates"), { recursive: true });
    writeFileSync(join(root, "var/lib/dpkg/status"), "");
    writeFileSync(state, "");
  });

  it("install: the user outpost, the data folders owned by it, the configuration readable by it only", async () => {
    for (const program of PROGRAMS) {
      const r = await dpkg("-i", file(names.deb(program, "linux-x64")));
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const passwd = readFileSync(join(root, "etc/passwd"), "utf8");
    const user = /^outpost:x:(\d+):(\d+):[^:]*:\/var\/lib\/outpost:/m.exec(passwd);
    expect(user, passwd).not.toBeNull();
    const [uid, gid] = [user![1], user![2]];
    for (const program of PROGRAMS) {
      expect(await owner(`var/lib/outpost/${program}`)).toBe(`750 ${uid} ${gid}`);
      expect(await owner(`etc/outpost/${program}.toml`)).toBe(`640 0 ${gid}`);
      expect(existsSync(join(root, `usr/bin/outpost-${program}`))).toBe(true);
    }
  }, 120_000);

  it("upgrade: the data and the administrator's configuration stay; the binary is replaced", async () => {
    writeFileSync(join(root, "var/lib/outpost/collector/metrics.db"), "the user's data");
    writeFileSync(join(root, "var/lib/outpost/agent/buffer.db"), "buffered points");
    const conf = join(root, "etc/outpost/agent.toml");
    writeFileSync(conf, readFileSync(conf, "utf8").replace('# tenant = "acme"', 'tenant = "edited-by-admin"'));
    for (const program of PROGRAMS) {
      const r = await dpkg("-i", await laterVersion(program));
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(root, `usr/bin/outpost-${program}`), "utf8")).toContain("echo later");
    }
    expect(readFileSync(conf, "utf8")).toContain('tenant = "edited-by-admin"');
    expect(readFileSync(join(root, "var/lib/outpost/collector/metrics.db"), "utf8")).toBe("the user's data");
    expect(readFileSync(join(root, "var/lib/outpost/agent/buffer.db"), "utf8")).toBe("buffered points");
  }, 120_000);

  it("remove keeps configuration and data; purge removes the configuration and keeps the data, saying where", async () => {
    expect((await dpkg("--remove", "outpost-agent")).code).toBe(0);
    expect(existsSync(join(root, "usr/bin/outpost-agent"))).toBe(false);
    expect(readFileSync(join(root, "etc/outpost/agent.toml"), "utf8")).toContain("edited-by-admin");
    expect(existsSync(join(root, "var/lib/outpost/agent/buffer.db"))).toBe(true);

    const purge = await dpkg("--purge", "outpost-agent", "outpost-collector");
    expect(purge.code, purge.stdout + purge.stderr).toBe(0);
    expect(purge.stdout + purge.stderr).toMatch(/outpost-collector: the data in \/var\/lib\/outpost\/collector is kept/);
    expect(existsSync(join(root, "etc/outpost/agent.toml"))).toBe(false);
    expect(existsSync(join(root, "etc/outpost/collector.toml"))).toBe(false);
    expect(readFileSync(join(root, "var/lib/outpost/collector/metrics.db"), "utf8")).toBe("the user's data");
    expect(readFileSync(join(root, "var/lib/outpost/agent/buffer.db"), "utf8")).toBe("buffered points");
    expect(readFileSync(join(root, "etc/passwd"), "utf8")).toMatch(/^outpost:/m);
  }, 120_000);
});
