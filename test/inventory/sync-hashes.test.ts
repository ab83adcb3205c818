import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { treeHashJson } from "../../src/inventory/hash.ts";
import { parseStructure, structureToJson } from "../../src/inventory/structure.ts";
import { structureHashTree } from "../../src/inventory/structure-hash.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient, paths, upstreamSha1 as H } from "./support.ts";

/*
 * Expected hashes are built here from the rules of research §3.7, not with the collector's code:
 * identity = SHA-1(children identities in slot order + own identity), content = SHA-1(own fields +
 * name + properties sorted by key), sync = SHA-1(identity + content); hex bytes without zero padding.
 */

let col: TestCollector;
let api: InventoryClient;
const T = "/t;sync";

const hashes = (identity: string, content: string) => ({ identity: H(identity), content: H(content), sync: H(H(identity) + H(content)) });
/** A missing data entity counts as its role with an undefined (null) value. */
const dummy = (role: string) => hashes(`${role}null`, "null");

function structure(opts: { withSda1: boolean; withLoad: boolean; sdaProps: AnyJson; extraResource?: boolean }) {
  const sdaChildren: AnyJson = { metric: [{ data: { id: "used", metricTypePath: `${T}/f;agent1/mt;Used`, collectionInterval: 30 } }] };
  if (opts.withSda1) sdaChildren.resource = [{ data: { id: "sda1", resourceTypePath: "../rt;Disk" } }];
  const resources: AnyJson[] = [{ data: { id: "sda", resourceTypePath: "/f;agent1/rt;Disk", properties: opts.sdaProps }, children: sdaChildren }];
  if (opts.extraResource) resources.push({ data: { id: "sdb", resourceTypePath: "rt;Disk" } });
  return {
    type: "feed",
    data: { id: "agent1", name: "Agent 1" },
    children: {
      resourceType: [
        {
          data: { id: "Disk", properties: { vendor: "x" } },
          children: { dataEntity: [{ data: { role: "configurationSchema", value: { type: "object", b: [1, 2.5, "s"] } } }] },
        },
      ],
      metricType: [{ data: { id: "Used", type: "GAUGE", unit: "PERCENTAGE", collectionInterval: 60 } }],
      resource: resources,
      ...(opts.withLoad ? { metric: [{ data: { id: "load", metricTypePath: "mt;Used", collectionInterval: 15 } }] } : {}),
    },
  };
}

async function sync(path: string, s: unknown, configuration?: unknown) {
  return api.post(`/sync/${path}`, { structure: s, ...(configuration ? { configuration } : {}) });
}

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "sync");
});
afterAll(async () => {
  await col.close();
});

describe("sync and hashes", () => {
  it("creates a feed from a structure with hashes computed as upstream does", async () => {
    const s = structure({ withSda1: true, withLoad: true, sdaProps: { size: 10, ro: false } });
    await expectStatus(await sync("f;agent1", s), 204);

    const schemaJson = '{"b":[1,2.5,"s"],"type":"object"}';
    const schema = hashes(`configurationSchema${schemaJson}`, schemaJson);
    const disk = hashes(`${schema.identity}${dummy("connectionConfigurationSchema").identity}Disk`, "vendorx");
    const used = hashes("UsedGAUGEPERCENTAGE", "GAUGEPERCENTAGE60");
    const usedMetric = hashes("used", "../../mt;Used30");
    const noConfig = dummy("configuration").identity + dummy("connectionConfiguration").identity;
    const sda1 = hashes(`${noConfig}sda1`, "../../rt;Disk");
    // Content: the type path relative to sda, then the properties by key (ro=false, size=10).
    const sda = hashes(`${noConfig}${sda1.identity}${usedMetric.identity}sda`, "../rt;Diskrofalsesize10");
    const load = hashes("load", "../mt;Used15");
    const feed = hashes(`${disk.identity}${used.identity}${sda.identity}${load.identity}agent1`, "Agent 1");

    const expectHashes = async (path: string, h: ReturnType<typeof hashes>) => {
      const e = await body(await expectStatus(await api.get(`/entity/${path}`), 200));
      expect([e.identityHash, e.contentHash, e.syncHash], path).toEqual([h.identity, h.content, h.sync]);
    };
    await expectHashes("f;agent1", feed);
    await expectHashes("f;agent1/rt;Disk", disk);
    await expectHashes("f;agent1/rt;Disk/d;configurationSchema", schema);
    await expectHashes("f;agent1/mt;Used", used);
    await expectHashes("f;agent1/r;sda", sda);
    await expectHashes("f;agent1/r;sda/r;sda1", sda1);
    await expectHashes("f;agent1/r;sda/m;used", usedMetric);
    await expectHashes("f;agent1/m;load", load);
    // Some of these hashes have bytes below 0x10, so they are shorter than 40 characters.
    expect([feed, disk, used, sda, sda1, load].some((h) => h.identity.length < 40 || h.content.length < 40)).toBe(true);

    const tree = await body(await expectStatus(await api.get("/entity/f;agent1/treeHash"), 200));
    const leaf = (h: { sync: string }) => ({ hash: h.sync, children: {} });
    expect(tree).toEqual({
      hash: feed.sync,
      children: {
        "rt;Disk": {
          hash: disk.sync,
          children: { "d;configurationSchema": leaf(schema), "d;connectionConfigurationSchema": leaf(dummy("connectionConfigurationSchema")) },
        },
        "mt;Used": leaf(used),
        "r;sda": {
          hash: sda.sync,
          children: {
            "d;configuration": leaf(dummy("configuration")),
            "d;connectionConfiguration": leaf(dummy("connectionConfiguration")),
            "r;sda1": {
              hash: sda1.sync,
              children: { "d;configuration": leaf(dummy("configuration")), "d;connectionConfiguration": leaf(dummy("connectionConfiguration")) },
            },
            "m;used": leaf(usedMetric),
          },
        },
        "m;load": leaf(load),
      },
    });
    // An agent can compute the same tree from its structure before sending it, and its JSON form round-trips.
    const parsed = parseStructure(s);
    expect(treeHashJson(structureHashTree(parsed, CanonicalPath.parse(`${T}/f;agent1`)))).toEqual(tree);
    expect(parseStructure(structureToJson(parsed))).toEqual(parsed);
  });

  it("removes entities under the root that are not in the structure, updates and adds the rest", async () => {
    await expectStatus(await sync("f;agent1", structure({ withSda1: false, withLoad: false, sdaProps: { size: 20 }, extraResource: true })), 204);
    expect((await api.get("/entity/f;agent1/r;sda/r;sda1")).status).toBe(404);
    expect((await api.get("/entity/f;agent1/m;load")).status).toBe(404);
    expect((await body(await api.get("/entity/f;agent1/r;sda"))).properties).toEqual({ size: 20 });
    await expectStatus(await api.get("/entity/f;agent1/r;sdb"), 200);
    const all = await body(await api.get("/traversal/f;agent1/recursive"));
    expect(paths(all)).toEqual([
      `${T}/f;agent1/mt;Used`,
      `${T}/f;agent1/r;sda`,
      `${T}/f;agent1/r;sda/m;used`,
      `${T}/f;agent1/r;sdb`,
      `${T}/f;agent1/rt;Disk`,
      `${T}/f;agent1/rt;Disk/d;configurationSchema`,
    ]);
    // The stored hashes agree with a fresh computation of the tree.
    const feed = await body(await api.get("/entity/f;agent1"));
    expect((await body(await api.get("/entity/f;agent1/treeHash"))).hash).toBe(feed.syncHash);
  });

  it("leaves unmentioned entities of types that are not synced, and deep search looks inside them", async () => {
    const s = {
      type: "feed",
      data: { id: "doc" },
      children: {
        resourceType: [{ data: { id: "T" } }],
        metricType: [{ data: { id: "M", type: "GAUGE", unit: "NONE", collectionInterval: 1 } }],
        resource: [1, 2].map((i) => ({
          data: { id: `resource${i}`, resourceTypePath: "rt;T" },
          children: { metric: [3, 4].map((m) => ({ data: { id: `metric${i}${m}`, metricTypePath: "../mt;M", collectionInterval: 1 } })) },
        })),
        metric: [5, 6].map((m) => ({ data: { id: `metric${m}`, metricTypePath: "mt;M", collectionInterval: 1 } })),
      },
    };
    const onlyResource1AndMetric5 = {
      ...s,
      children: { ...s.children, resource: [{ ...s.children.resource[0]!, children: { metric: [s.children.resource[0]!.children.metric[0]!] } }], metric: [s.children.metric[0]!] },
    };
    const metricsLeft = async () => paths(await body(await api.get("/traversal/f;doc/recursive/type=m"))).map((p) => p.split("/").slice(3).join("/"));

    await expectStatus(await sync("f;doc", s), 204);
    await expectStatus(await sync("f;doc", onlyResource1AndMetric5, { syncedTypes: ["m"], deepSearch: false }), 204);
    expect(await metricsLeft()).toEqual(["m;metric5", "r;resource1/m;metric13", "r;resource2/m;metric23", "r;resource2/m;metric24"]);

    await expectStatus(await sync("f;doc", s), 204);
    await expectStatus(await sync("f;doc", onlyResource1AndMetric5, { syncedTypes: ["m"], deepSearch: true }), 204);
    expect(await metricsLeft()).toEqual(["m;metric5", "r;resource1/m;metric13"]);
    await expectStatus(await api.get("/entity/f;doc/r;resource2"), 200);
  });

  it("syncs below a resource and keeps the stored hashes consistent after plain updates", async () => {
    await expectStatus(
      await sync("f;agent1/r;sdb", {
        type: "resource",
        data: { id: "sdb", resourceTypePath: "rt;Disk" },
        children: { dataEntity: [{ data: { role: "configuration", value: "x" } }] },
      }),
      204,
    );
    const cfg = await body(await api.get("/entity/f;agent1/r;sdb/d;configuration"));
    expect(cfg.identityHash).toBe(H('configuration"x"'));
    await expectStatus(await api.put("/entity/f;agent1/r;sdb", { name: "renamed" }), 204);
    const sdb = await body(await api.get("/entity/f;agent1/r;sdb"));
    expect(sdb.contentHash).toBe(H("../rt;Diskrenamed"));
    const feed = await body(await api.get("/entity/f;agent1"));
    expect((await body(await api.get("/entity/f;agent1/treeHash"))).hash).toBe(feed.syncHash);
  });

  it("identical finds entities with the same identity in other feeds", async () => {
    const copy = structure({ withSda1: false, withLoad: false, sdaProps: { size: 99 } });
    copy.data.id = "agent2";
    copy.children.resource[0].data.resourceTypePath = "/f;agent2/rt;Disk";
    copy.children.resource[0].children.metric[0].metricTypePath = "/f;agent2/mt;Used";
    copy.children.resource[0].children.metric = [{ data: { id: "used", metricTypePath: "/f;agent2/mt;Used", collectionInterval: 30 } }];
    await expectStatus(await sync("f;agent2", copy), 204);
    expect(paths(await body(await api.get("/traversal/f;agent1/rt;Disk/identical")))).toEqual([`${T}/f;agent1/rt;Disk`, `${T}/f;agent2/rt;Disk`]);
    // Properties are content, not identity: sda differs in size but is identical.
    expect(paths(await body(await api.get("/traversal/f;agent2/r;sda/identical")))).toEqual([`${T}/f;agent1/r;sda`, `${T}/f;agent2/r;sda`]);
  });

  it("refuses what cannot be synced and bad structures", async () => {
    await expectStatus(await api.post("/entity/environment", { id: "env" }), 201);
    const env = await sync("e;env", { type: "feed", data: { id: "env" } });
    expect(env.status).toBe(400);
    expect((await sync("f;agent1", { type: "resource", data: { id: "agent1", resourceTypePath: "x" } })).status).toBe(400);
    expect((await sync("f;x", { type: "feed", data: {} })).status).toBe(400);
    expect((await sync("f;x", { type: "feed", data: { id: "x" }, children: { environment: [] } })).status).toBe(400);
    expect((await sync("f;x", { type: "feed", data: { id: "x" }, children: { dataEntity: [{ data: { role: "configuration" } }] } })).status).toBe(400);
    const dup = { type: "feed", data: { id: "x" }, children: { resourceType: [{ data: { id: "a" } }, { data: { id: "a" } }] } };
    expect((await sync("f;x", dup)).status).toBe(400);
    expect((await api.post("/sync/f;x", { nothing: true })).status).toBe(400);
    expect((await api.get("/entity/f;x")).status).toBe(404);
    expect((await api.get("/entity/e;env/treeHash")).status).toBe(400);
    expect((await api.get("/entity/f;missing/treeHash")).status).toBe(404);
  });
});
