import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { ProcFiles } from "../inputs/host/proc-files.ts";
import type { HostSeries } from "../inputs/host/series.ts";
import { discoverHostFacts, type HostFacts } from "./host-facts.ts";
import { buildHostStructure, type InputsInventory } from "./host-structure.ts";
import { type DigestedStructure, digestStructure } from "./structure-digest.ts";

/** Facts such as the CPU model rarely change; re-read them this often (cpuinfo is long on big hosts). */
const FACTS_REFRESH_MS = 10 * 60_000;

function readOsRelease(): string | undefined {
  for (const path of ["/etc/os-release", "/usr/lib/os-release"]) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      // try the next location (os-release(5))
    }
  }
  return undefined;
}

/**
 * The host feed's inventory from each sample's series and the inputs' state. The structure is
 * rebuilt only when the set of series, their resources' properties, or the inputs and their
 * targets' health changed, so an idle host costs a string compare.
 */
export function createHostInventory(o: { feed: string; proc: ProcFiles; collectionIntervalSeconds: number; agentVersion?: string; now?: () => number }) {
  const now = o.now ?? Date.now;
  let facts: HostFacts | undefined;
  let factsAt = 0;
  let signature = "";
  let last: DigestedStructure | undefined;

  const signatureOf = (series: readonly HostSeries[]) => {
    let sig = "";
    for (const s of series) {
      sig += `|${s.id}`;
      if (s.resource.properties) for (const v of Object.values(s.resource.properties)) sig += `,${v}`;
    }
    return sig;
  };

  return {
    structureFor(series: readonly HostSeries[], inputs?: InputsInventory): DigestedStructure {
      if (!facts || now() - factsAt >= FACTS_REFRESH_MS) {
        facts = discoverHostFacts(o.proc, readOsRelease(), hostname());
        factsAt = now();
        // Rebuild; an unchanged result keeps its digest and is not resent.
        signature = "";
      }
      const sig = signatureOf(series) + (inputs ? JSON.stringify(inputs) : "");
      if (last && signature !== "" && sig === signature) return last;
      signature = sig;
      last = digestStructure(
        buildHostStructure({ feed: o.feed, facts, series, collectionIntervalSeconds: o.collectionIntervalSeconds, agentVersion: o.agentVersion, inputs }),
      );
      return last;
    },
  };
}
