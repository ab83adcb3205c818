import { SQL } from "bun";
import { describe, expect, it } from "vitest";
import { isPostgresUrl, numbered, openPostgres, redactedUrl } from "../../src/postgres/connect.ts";
import { postgresFailure } from "../../src/postgres/failure.ts";
import { storageFailure, storageFailureMessage } from "../../src/sqlite/storage-failure.ts";
import { freePort } from "../helpers/ports.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

const serverError = (errno: string) => Object.assign(new Error("x"), { code: "ERR_POSTGRES_SERVER_ERROR", errno });

describe("PostgreSQL failures as storage failures", () => {
  it("classifies server errors by SQLSTATE", () => {
    expect(postgresFailure(serverError("53100"))).toBe("full");
    expect(postgresFailure(serverError("58030"))).toBe("io");
    expect(postgresFailure(serverError("XX001"))).toBe("io");
    for (const s of ["08006", "57P01", "57P03", "53300", "25006"]) expect(postgresFailure(serverError(s)), s).toBe("unavailable");
    for (const s of ["23505", "42P01", "22012", "40001"]) expect(postgresFailure(serverError(s)), s).toBeUndefined();
    expect(storageFailure(serverError("53100"))).toBe("full");
    expect(storageFailure(new Error("plain"))).toBeUndefined();
  });

  it("a server nobody listens on is 'unavailable', from the real client", async () => {
    const sql = new SQL(`postgres://outpost:pw@127.0.0.1:${await freePort()}/outpost`, { max: 1, connectionTimeout: 2 });
    const err = await sql.unsafe("SELECT 1").catch((e) => e);
    await sql.close();
    expect(storageFailure(err)).toBe("unavailable");
    expect(storageFailureMessage("unavailable")).toMatch(/database cannot be reached/);
  });

  it("URLs: only postgres ones, shown without password or query, placeholders numbered", () => {
    expect(isPostgresUrl("postgres://a@b/c")).toBe(true);
    expect(isPostgresUrl(" postgresql://a@b/c")).toBe(true);
    expect(isPostgresUrl("mysql://a@b/c")).toBe(false);
    expect(redactedUrl("postgres://outpost:s3cret@db.example.com:5432/outpost?password=x&sslmode=require")).toBe("postgres://outpost@db.example.com:5432/outpost");
    expect(redactedUrl("postgres://db/outpost")).toBe("postgres://db/outpost");
    expect(redactedUrl("not a url")).toBe("(unparsable URL)");
    expect(numbered("a = ? AND b IN (?, ?)")).toBe("a = $1 AND b IN ($2, $3)");
  });
});

describe("the collector's pool", () => {
  it("plans every statement with its parameters, so a plan made on an empty table never stays a full scan", async () => {
    const db = await createTestDatabase();
    const sql = openPostgres(db.url, { max: 1 });
    try {
      const [row] = await sql.unsafe("SELECT current_setting('plan_cache_mode') AS mode, current_setting('application_name') AS app");
      expect(row).toEqual({ mode: "force_custom_plan", app: "outpost-collector" });
    } finally {
      await sql.close();
      await db.drop();
    }
  });
});
