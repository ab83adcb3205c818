import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import { LeaseKeeper } from "../../src/postgres/leases.ts";

/**
 * This collector's leases on a shared database (src/postgres/leases.ts), named after its node
 * name (--node-name, else the host) and process, so that an operator reading `outpost_leases`
 * knows which collector holds what. Changes are logged; a failed renewal once per distinct
 * error (the leases then lapse by themselves).
 */
export async function startLeases(sql: SQL, log: Logger, nodeName: string): Promise<LeaseKeeper> {
  let lastError = "";
  const keeper = new LeaseKeeper(sql, {
    owner: `${nodeName}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
    onChange: (held) => log.info("work partitions held", { partitions: held.map((l) => l.partition).join(",") || "none" }),
    onError: (e) => {
      const msg = String(e);
      if (msg !== lastError) log.warn("renewing leases failed: the partitions lapse unless it passes", { err: msg });
      lastError = msg;
    },
  });
  await keeper.start();
  log.info("leases started", { owner: keeper.owner, partitions: keeper.partitions });
  await warnOfNamesake(sql, log, nodeName, keeper.owner);
  return keeper;
}

/**
 * Two running collectors with one node name would write the same self-metrics series. Only a
 * warning: the other may be this collector's previous process, killed less than 10 s ago.
 */
async function warnOfNamesake(sql: SQL, log: Logger, nodeName: string, owner: string): Promise<void> {
  const rows = (await sql.unsafe(
    "SELECT owner FROM outpost_collectors WHERE split_part(owner, ':', 1) = $1 AND owner <> $2 AND seen_at > clock_timestamp() - interval '10 seconds'",
    [nodeName, owner],
  )) as { owner: string }[];
  if (rows.length > 0) {
    log.warn("another collector with this node name renewed its leases in the last 10 s: if it still runs, give each a --node-name of its own, or their self-metrics overwrite each other", {
      nodeName,
      other: rows[0]!.owner,
    });
  }
}
