import { authorizeAdmin } from "../../../src/http/access.ts";
import { jsonOr204 } from "../../../src/http/json.ts";
import type { Routes } from "../../../src/http/service.ts";
import type { ReleaseService } from "../../fleet/releases.ts";

const who = (c: { get(k: "access"): { name: string } | undefined }) => c.get("access")?.name ?? "anonymous";

/**
 * Agent releases (docs/fleet.md, "Upgrades"): any credential reads the list (releases are the
 * collector's, no tenant's); an admin uploads and deletes; agents download with their own
 * credential (collector/http/authenticate.ts lets them reach the binaries only).
 */
export function releaseRoutes(r: Routes, releases: ReleaseService): void {
  r.get("/releases", async (c) => jsonOr204(c, await releases.list()));
  r.get("/releases/:version", async (c) => c.json(await releases.get(c.req.param("version")!)));
  r.delete("/releases/:version", async (c) => {
    authorizeAdmin(c, "Deleting a release");
    await releases.delete(c.req.param("version")!, who(c));
    return c.body(null, 204);
  });
  r.put("/releases/:version/binaries/:arch", async (c) => {
    authorizeAdmin(c, "Uploading a release");
    const b = await releases.upload({
      version: c.req.param("version")!,
      arch: c.req.param("arch")!,
      signature: c.req.header("Outpost-Signature"),
      sha256: c.req.header("Outpost-Sha256"),
      length: c.req.header("Content-Length"),
      body: c.req.raw.body,
      who: who(c),
    });
    return c.json(b, 201);
  });
  r.get("/releases/:version/binaries/:arch", async (c) => {
    const { binary, bytes } = await releases.download(c.req.param("version")!, c.req.param("arch")!);
    const headers = {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(binary.size),
      "Outpost-Sha256": binary.sha256,
      "Outpost-Signature": binary.signature,
      "Cache-Control": "no-store",
    };
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    const it = bytes[Symbol.asyncIterator]();
    // Pulled piece by piece: a slow agent holds one piece in memory, not the binary.
    const stream = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        const { done, value } = await it.next();
        if (done) ctl.close();
        else ctl.enqueue(value);
      },
      async cancel() {
        await it.return?.();
      },
    });
    return c.body(stream, 200, headers);
  });
}
