import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import { migrate } from "../../src/sqlite/migrations.ts";
import { bufferSchema, getMeta, setMeta } from "./schema.ts";

export interface BufferIdentity {
  tenant: string;
  feed: string;
}

export class BufferIdentityError extends Error {}

/**
 * Opens a buffer's database for one tenant and feed: brings its schema up to date, refuses a
 * buffer of another tenant or feed (its points must never be sent under another name), and
 * counts the open. Returns the session number, which batch sequence numbers restart with.
 * `opened` runs in the same transaction as the count, with the new session number.
 */
export function openBufferSession(db: Database, identity: BufferIdentity, opened?: (session: number) => void): number {
  migrate(db, bufferSchema(basename(db.filename) || "buffer"));
  return db.transaction(() => {
    const owner = getMeta(db, "identity");
    const mine = JSON.stringify([identity.tenant, identity.feed]);
    if (owner !== undefined && owner !== mine) {
      const [t, f] = JSON.parse(owner) as [string, string];
      throw new BufferIdentityError(
        `the buffer belongs to tenant "${t}", feed "${f}"; its points must not be sent as tenant "${identity.tenant}", feed "${identity.feed}". Use another --data-dir.`,
      );
    }
    setMeta(db, "identity", mine);
    const s = Number(getMeta(db, "session") ?? "0") + 1;
    setMeta(db, "session", String(s));
    opened?.(s);
    return s;
  })();
}
