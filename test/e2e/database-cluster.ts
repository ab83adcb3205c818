import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PrivateMosquitto, startMosquitto } from "../helpers/mosquitto.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";
import { portOf, Running } from "../helpers/program.ts";

export interface CollectorProcess {
  p: Running;
  url: string;
  dataDir: string;
}

/**
 * What the tests of collector processes on one PostgreSQL database set up: a database of their
 * own, a private Mosquitto when they share a broker, the database URL in a file (never on the
 * command line), scratch folders, and the processes — all removed by tearDown.
 */
export class DatabaseCluster {
  db!: TestDatabase;
  mosquitto?: PrivateMosquitto;
  urlFile!: string;
  readonly procs: Running[] = [];
  /** What each process is, for the names of its kept log (keepLogs). */
  readonly labels = new Map<Running, string>();
  private readonly dirs: string[] = [];

  constructor(private readonly prefix: string) {}

  async setUp(options: { broker: boolean }): Promise<void> {
    this.db = await createTestDatabase();
    if (options.broker) this.mosquitto = await startMosquitto();
    this.urlFile = this.writeUrlFile(this.db.url);
  }

  async tearDown(): Promise<void> {
    for (const p of this.procs) await p.stop();
    await this.mosquitto?.stop();
    await this.db?.drop();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }

  folder(): string {
    const d = mkdtempSync(join(tmpdir(), `outpost-${this.prefix}-`));
    this.dirs.push(d);
    return d;
  }

  /** A 0600 file holding url, as an operator would give it (--database-url-file). */
  writeUrlFile(url: string): string {
    const file = join(this.folder(), "database-url");
    writeFileSync(file, `${url}\n`, { mode: 0o600 });
    return file;
  }

  /** A collector process on the database (and the broker, when there is one), ready to answer. */
  async startCollector(options: { dataDir?: string; urlFile?: string; args?: string[] } = {}): Promise<CollectorProcess> {
    const dataDir = options.dataDir ?? this.folder();
    const p = Running.start("collector", [
      ...["--data-dir", dataDir, "--http-port", "0", "--mqtt-port", "0", "--log-level", "info"],
      ...["--database-url-file", options.urlFile ?? this.urlFile],
      ...(this.mosquitto ? ["--broker", this.mosquitto.url] : []),
      ...(options.args ?? []),
    ]);
    this.procs.push(p);
    this.labels.set(p, "collector");
    const line = await p.waitForLine(/HTTP listening/, 30_000);
    await p.waitForLine(/collector ready/, 30_000);
    return { p, url: `http://127.0.0.1:${portOf(line)}`, dataDir };
  }

  /**
   * For a failed test: every process's stderr, killed ones included, written to a folder that
   * tearDown leaves, one file each. Answers its path with the collectors' lines on leases, the
   * relay and alerts, for a CI log that keeps no files.
   */
  keepLogs(): string {
    const dir = mkdtempSync(join(tmpdir(), `outpost-${this.prefix}-logs-`));
    const out = [`logs of the ${this.procs.length} processes kept in ${dir}`];
    this.procs.forEach((p, i) => {
      const label = this.labels.get(p) ?? "process";
      const name = `${i}-${label}-${p.pid}`;
      writeFileSync(join(dir, `${name}.log`), `${p.lines.join("\n")}\n`);
      if (label === "collector") out.push(`--- ${name}`, ...p.lines.filter((l) => /lease|partition|relay|alert|trigger/i.test(l)).slice(-150));
    });
    return out.join("\n");
  }

  /** Live leases: partition → owner (host:pid:random). */
  async leaseOwners(): Promise<Map<number, string>> {
    const rows = (await this.db.sql.unsafe("SELECT partition, owner FROM outpost_leases WHERE owner IS NOT NULL AND expires_at > clock_timestamp()")) as { partition: number; owner: string }[];
    return new Map(rows.map((r) => [r.partition, r.owner]));
  }
}

/** The pid in a lease owner's name. */
export const ownerPid = (owner: string | undefined): number | undefined => (owner === undefined ? undefined : Number(owner.split(":")[1]));

/** fetch against a collector as one tenant, with an optional JSON body. */
export const tenantRequest =
  (tenant: string) =>
  (base: string, path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> =>
    fetch(base + path, {
      method: init.method ?? "GET",
      headers: { "Svc-Tenant": tenant, ...(init.json === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
