import type { KeyObject } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync } from "node:fs";
import type { Decoder } from "cbor-x";
import { OUTPOST_VERSION } from "../../src/config/version.ts";
import type { Logger } from "../../src/log/logger.ts";
import { ProtocolError } from "../../src/protocol/envelope.ts";
import { decodeUpgradeOrder, type UpgradeOrder, type UpgradeReport } from "../../src/protocol/upgrade-messages.ts";
import { isReleaseArch, verifyRelease } from "../../src/release/signature.ts";
import { compareVersions } from "../../src/release/version.ts";
import { type DownloadAccess, DownloadRefused, download, downloadUrl } from "./download.ts";
import { binaryPaths, isCompiled } from "./paths.ts";
import { type Attempt, readUpgradeState, writeUpgradeState } from "./state.ts";

/** Starts of one version interrupted this often count as its failure. */
const MAX_INTERRUPTIONS = 3;
const DOWNLOAD_TRIES = 3;

export interface UpgraderDeps {
  dataDir: string;
  /** --release-public-key: without it every order is refused. */
  publicKey?: KeyObject;
  access: DownloadAccess;
  dec: Decoder;
  log: Logger;
  /** The upgrade report changed: publish a status carrying it. */
  reported(): void;
  /** Stop this agent and run the new binary on probation (guard.ts). */
  handOver(o: { version: string; deadlineMs: number }): Promise<void>;
  /** Whether this is a single-file binary (paths.ts); tests of the order handling say yes. */
  compiled?: boolean;
}

/** The report of an attempt, as the status carries it (OpAMP's package status, docs/fleet.md). */
function reportOf(a: Attempt | undefined): UpgradeReport | undefined {
  if (!a || a.state === "interrupted") return undefined;
  const state = a.state === "probation" || a.state === "proven" ? "installing" : a.state;
  return { state, version: a.version, rollout: a.rollout, ...(a.reason ? { reason: a.reason } : {}), ...(a.rolledBack ? { rolledBack: true } : {}), at: a.at };
}

/**
 * Takes the collector's upgrade orders (docs/fleet.md, "Upgrades"): decides whether to act on
 * one, downloads the binary with the agent's own credential, checks its size, SHA-256 and the
 * release key's signature before anything else is done with it, then hands over to the probation.
 * Each outcome is kept in the state file, so an order is acted on once per rollout.
 */
export class Upgrader {
  private busy: { rollout: string; abort: AbortController; handingOver: boolean } | undefined;
  /** What is under way now (downloading), ahead of the state file. */
  private transient: UpgradeReport | undefined;
  private readonly arch = process.arch;
  private closed = false;

  constructor(private readonly d: UpgraderDeps) {}

  /** The latest upgrade, for the status message. */
  report(): UpgradeReport | undefined {
    return this.transient ?? reportOf(readUpgradeState(this.d.dataDir).last);
  }

  /** A message on the upgrade topic (retained: also when the agent connects). */
  onOrder(payload: Uint8Array): void {
    if (payload.length === 0) {
      // The order was withdrawn (the rollout paused): a download not done yet stops; a probation goes on.
      if (this.busy && !this.busy.handingOver) {
        this.d.log.info("upgrade order withdrawn: the download stops", { rollout: this.busy.rollout });
        this.busy.abort.abort();
      }
      return;
    }
    let order: UpgradeOrder;
    try {
      order = decodeUpgradeOrder(this.d.dec, payload);
    } catch (e) {
      this.d.log.warn("ignoring an invalid upgrade order", { err: e instanceof ProtocolError ? e.message : String(e) });
      return;
    }
    const refusal = this.refusal(order);
    if (refusal === null) return;
    if (refusal !== undefined) this.failed(order, refusal);
    else void this.run(order);
  }

  /** Why the order is refused; null when there is nothing to do (done already, under way). */
  private refusal(o: UpgradeOrder): string | null | undefined {
    if (o.version === OUTPOST_VERSION) return null;
    if (this.busy) return null;
    const last = readUpgradeState(this.d.dataDir).last;
    if (last?.rollout === o.rollout && last.version === o.version && (last.state === "failed" || last.state === "installed")) return null;
    if (!this.d.publicKey) return "no --release-public-key is pinned: this agent takes no upgrade";
    if (!(this.d.compiled ?? isCompiled())) return "this agent runs from source, not as a single-file binary: an upgrade replaces a binary";
    if (!isReleaseArch(this.arch)) return `no release is made for ${this.arch}`;
    if (!o.binaries[this.arch]) return `release ${o.version} has no ${this.arch} binary`;
    try {
      if (compareVersions(o.version, OUTPOST_VERSION) < 0 && !o.force) return `${o.version} is older than ${OUTPOST_VERSION}: a downgrade needs force`;
    } catch {
      return `'${o.version}' is not a version`;
    }
    if (last?.rollout === o.rollout && last.state === "interrupted" && (last.interruptions ?? 0) >= MAX_INTERRUPTIONS) {
      return `the probation was interrupted ${last.interruptions} times`;
    }
    return undefined;
  }

  private async run(o: UpgradeOrder): Promise<void> {
    const abort = new AbortController();
    this.busy = { rollout: o.rollout, abort, handingOver: false };
    const p = binaryPaths(this.d.dataDir);
    const b = o.binaries[this.arch as "x64" | "arm64"]!;
    this.transient = { state: "downloading", version: o.version, rollout: o.rollout, at: Date.now() };
    this.d.reported();
    const url = downloadUrl(o, this.arch as "x64" | "arm64", this.d.access);
    this.d.log.info("upgrade ordered: downloading", { rollout: o.rollout, version: o.version, url });
    try {
      mkdirSync(p.dir, { recursive: true, mode: 0o700 });
      let got: { size: number; sha256: string } | undefined;
      for (let attempt = 1; !got; attempt++) {
        try {
          got = await download(url, p.download, b.size, this.d.access, abort.signal);
        } catch (e) {
          if (abort.signal.aborted || e instanceof DownloadRefused || attempt >= DOWNLOAD_TRIES) throw e;
          this.d.log.warn("upgrade download failed; trying again", { attempt, err: (e as Error).message });
          await Bun.sleep(2000 * attempt);
        }
      }
      // Checked before the file is made executable, moved or run.
      const problem =
        got.size !== b.size
          ? `the download has ${got.size} bytes, not the ${b.size} ordered`
          : got.sha256 !== b.sha256
            ? `the download's SHA-256 is ${got.sha256}, not ${b.sha256} as ordered`
            : !verifyRelease(this.d.publicKey!, { version: o.version, arch: this.arch as "x64" | "arm64", size: got.size, sha256: got.sha256 }, b.signature)
              ? "the signature is not the pinned release key's"
              : undefined;
      if (problem) {
        rmSync(p.download, { force: true });
        return this.failed(o, `refused: ${problem}`);
      }
      // Executable by the agent's user only: the data folder stays private.
      chmodSync(p.download, 0o700);
      renameSync(p.download, p.next);
      const last = readUpgradeState(this.d.dataDir).last;
      const interruptions = last?.rollout === o.rollout && last.state === "interrupted" ? last.interruptions : undefined;
      writeUpgradeState(this.d.dataDir, {
        ...readUpgradeState(this.d.dataDir),
        last: { rollout: o.rollout, version: o.version, from: OUTPOST_VERSION, state: "probation", at: Date.now(), ...(interruptions ? { interruptions } : {}) },
      });
      this.transient = undefined;
      this.busy.handingOver = true;
      this.d.log.info("upgrade verified (size, SHA-256, signature): starting the new version on probation", { version: o.version, deadlineSeconds: o.deadlineMs / 1000 });
      this.d.reported();
      await this.d.handOver({ version: o.version, deadlineMs: o.deadlineMs });
    } catch (e) {
      rmSync(p.download, { force: true });
      // Stopped meanwhile: not a failure; the retained order comes again at the next start.
      if (this.closed) return;
      this.failed(o, abort.signal.aborted ? "the order was withdrawn during the download" : `the download failed: ${(e as Error).message}`);
    }
  }

  /** A failure before the probation: nothing changed, the agent goes on; kept so the order is not retried. */
  private failed(o: UpgradeOrder, reason: string): void {
    this.busy = undefined;
    this.transient = undefined;
    writeUpgradeState(this.d.dataDir, {
      ...readUpgradeState(this.d.dataDir),
      last: { rollout: o.rollout, version: o.version, from: OUTPOST_VERSION, state: "failed", reason, at: Date.now() },
    });
    this.d.log.warn("upgrade refused", { rollout: o.rollout, version: o.version, reason });
    this.d.reported();
  }

  /** The agent stops: a download under way ends. */
  close(): void {
    this.closed = true;
    if (this.busy && !this.busy.handingOver) this.busy.abort.abort();
  }
}
