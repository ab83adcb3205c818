import type { SQL } from "bun";
import { hostname } from "node:os";
import type { Logger } from "../../src/log/logger.ts";
import { LeaseKeeper } from "../../src/postgres/leases.ts";

/**
 * This collector's leases on a shared database (src/postgres/leases.ts), named after the host and
 * process so that an operator reading `outpost_leases` knows which collector holds what. Changes
 * are logged; a failed renewal once per distinct error (the leases then lapse by themselves).
 */
export async function startLeases(sql: SQL, log: Logger): Promise<LeaseKeeper> {
  let lastError = "";
  const keeper = new LeaseKeeper(sql, {
    owner: `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
    onChange: (held) => log.info("work partitions held", { partitions: held.map((l) => l.partition).join(",") || "none" }),
    onError: (e) => {
      const msg = String(e);
      if (msg !== lastError) log.warn("renewing leases failed: the partitions lapse unless it passes", { err: msg });
      lastError = msg;
    },
  });
  await keeper.start();
  log.info("leases started", { owner: keeper.owner, partitions: keeper.partitions });
  return keeper;
}
