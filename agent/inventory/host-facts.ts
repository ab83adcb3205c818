import { parseCpuinfo } from "../inputs/host/parse/cpuinfo.ts";
import type { ProcFiles } from "../inputs/host/proc-files.ts";

/** What identifies the host, read once at start and on each inventory refresh. */
export interface HostFacts {
  hostname: string;
  /** e.g. "Linux" */
  osType?: string;
  /** Kernel release, e.g. "6.1.0-18-amd64". */
  kernel?: string;
  /** PRETTY_NAME of os-release, e.g. "Debian GNU/Linux 12 (bookworm)". */
  osName?: string;
  /** Board or system model when the kernel names one (e.g. "Raspberry Pi 4 Model B Rev 1.4"). */
  machine?: string;
  /** Model of each CPU by index. */
  cpuModels: Map<number, string>;
}

/** The PRETTY_NAME (else NAME) of an os-release(5) file. */
export function osNameOf(osRelease: string): string | undefined {
  const values = new Map<string, string>();
  for (const line of osRelease.split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) values.set(m[1]!, m[2]!.replace(/^(["'])(.*)\1$/, "$2"));
  }
  return values.get("PRETTY_NAME") ?? values.get("NAME");
}

/** Host facts from procfs (hostname, kernel, cpuinfo) and the text of /etc/os-release if there is one. */
export function discoverHostFacts(proc: ProcFiles, osRelease: string | undefined, fallbackHostname: string): HostFacts {
  const line = (path: string) => proc.read(path)?.trim() || undefined;
  const cpuinfo = parseCpuinfo(proc.read("cpuinfo") ?? "");
  const cpuModels = new Map<number, string>();
  for (const p of cpuinfo.processors) if (p.model !== undefined) cpuModels.set(p.index, p.model);
  return {
    hostname: line("sys/kernel/hostname") ?? fallbackHostname,
    osType: line("sys/kernel/ostype"),
    kernel: line("sys/kernel/osrelease"),
    osName: osRelease === undefined ? undefined : osNameOf(osRelease),
    machine: cpuinfo.machine,
    cpuModels,
  };
}
