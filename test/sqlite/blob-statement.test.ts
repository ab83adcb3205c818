import { Database } from "bun:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { RELEASE_MIN_BYTES } from "../../src/runtime/release-buffer.ts";
import { runBindingBlob } from "../../src/sqlite/blob-statement.ts";

let db: Database | undefined;
afterEach(() => db?.close());

describe("runBindingBlob", () => {
  it("writes small and large blobs alike, in the caller's transaction", () => {
    db = new Database(":memory:");
    db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
    const sql = "INSERT INTO t (id, body) VALUES (?, ?)";
    const cached = db.query<null, [number, Uint8Array]>(sql);
    const small = new Uint8Array(100).fill(1);
    const large = new Uint8Array(RELEASE_MIN_BYTES * 8).fill(2);
    db.transaction(() => {
      runBindingBlob(db!, cached, sql, [1, small], small);
      runBindingBlob(db!, cached, sql, [2, large], large);
      runBindingBlob(db!, cached, sql, [3, small], small);
    })();
    const rows = db.query<{ id: number; body: Uint8Array }, []>("SELECT id, body FROM t ORDER BY id").all();
    expect(rows.map((r) => [r.id, r.body.byteLength, r.body[0]])).toEqual([
      [1, 100, 1],
      [2, RELEASE_MIN_BYTES * 8, 2],
      [3, 100, 1],
    ]);
    // A failing large write throws like the cached statement does, and leaves nothing behind.
    expect(() => runBindingBlob(db!, cached, sql, [2, large], large)).toThrow(/UNIQUE/);
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 3 });
  });
});
