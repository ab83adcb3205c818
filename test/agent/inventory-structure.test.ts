import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { discoverHostFacts, osNameOf } from "../../agent/inventory/host-facts.ts";
import { buildHostStructure } from "../../agent/inventory/host-structure.ts";
import { digestStructure } from "../../agent/inventory/structure-digest.ts";
import { createHostReader } from "../../agent/inputs/host/host-reader.ts";
import { DEFAULT_EXCLUDED_FS_TYPES, DEFAULT_HOST_EXCLUDES } from "../../agent/inputs/host/options.ts";
import { procFiles } from "../../agent/inputs/host/proc-files.ts";
import { seriesSelection } from "../../agent/inputs/host/selection.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { parseStructure, structureToJson } from "../../src/inventory/structure.ts";
import { structureHashTree } from "../../src/inventory/structure-hash.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { VM_T0, VM_T1 } from "./host/fixtures.ts";

const OS_RELEASE = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n';

function sampleAt(root: string, exclude = DEFAULT_HOST_EXCLUDES) {
  const proc = procFiles(root);
  const reader = createHostReader({
    feed: "edge1",
    proc,
    sys: { read: () => undefined, list: (d) => (d === "block" ? ["vda", "loop0"] : []) },
    statfs: (m) => (m === "/" ? { bsize: 4096, blocks: 10, bfree: 5, bavail: 4, files: 3, ffree: 2 } : undefined),
    selection: seriesSelection(["*"], exclude),
    excludedFsTypes: new Set(DEFAULT_EXCLUDED_FS_TYPES),
    userHz: 100,
  });
  const facts = discoverHostFacts(proc, OS_RELEASE, "fallback");
  return { facts, sample: reader.sample(1) };
}

const structureAt = (root: string, exclude?: string[]) => {
  const { facts, sample } = sampleAt(root, exclude);
  return buildHostStructure({ feed: "edge1", facts, series: sample.series, collectionIntervalSeconds: 10 });
};

describe("host facts", () => {
  test("from captured procfs and os-release", () => {
    const f = discoverHostFacts(procFiles(VM_T0), OS_RELEASE, "fallback");
    expect(f).toEqual({
      hostname: "vm",
      osType: "Linux",
      kernel: "6.18.44-fc-v769",
      osName: "Debian GNU/Linux 12 (bookworm)",
      machine: undefined,
      cpuModels: new Map([
        [0, "AMD EPYC"],
        [1, "AMD EPYC"],
      ]),
    });
  });

  test("fallbacks when procfs says nothing", () => {
    const f = discoverHostFacts({ read: () => undefined, list: () => [] }, undefined, "box");
    expect(f.hostname).toBe("box");
    expect(f.cpuModels.size).toBe(0);
    expect(osNameOf("NAME=Alpine\n")).toBe("Alpine");
  });
});

describe("host inventory structure", () => {
  test("is a valid structure: it survives the collector's parser and hashes at the feed's path", () => {
    const s = structureAt(VM_T0);
    const json = structureToJson(s);
    expect(structureToJson(parseStructure(json))).toEqual(json);
    const tree = structureHashTree(s, CanonicalPath.parse("/t;acme/f;edge1"));
    expect(tree.hashes.identityHash).toMatch(/^[0-9a-f]+$/);
  });

  test("resource types, metric types, the host and its CPUs, disks, filesystems and interfaces", () => {
    const s = structureAt(VM_T0);
    const kids = s.root.children;
    expect(kids.filter((c) => c.blueprint.type === "rt").map((c) => c.blueprint.id)).toEqual([
      "cpu",
      "disk",
      "filesystem",
      "host",
      "input",
      "interface",
      "scrape-target",
    ]);
    const counter = kids.find((c) => c.blueprint.id === "network_receive_bytes_total");
    expect(counter?.blueprint).toMatchObject({ type: "mt", metricDataType: "COUNTER", unit: "BYTES", collectionInterval: 10 });
    const host = kids.find((c) => c.blueprint.type === "r");
    expect(host?.blueprint).toMatchObject({
      id: "host",
      name: "vm",
      typePath: "/f;edge1/rt;host",
      properties: { hostname: "vm", cpus: 2, kernel: "6.18.44-fc-v769", osName: "Debian GNU/Linux 12 (bookworm)" },
    });
    const children = host?.children.filter((c) => c.blueprint.type === "r").map((c) => c.blueprint.id);
    expect(children).toEqual([
      "cpu:cpu0",
      "cpu:cpu1",
      "disk:vda",
      "filesystem:/",
      "interface:eth0",
      "interface:ifb0",
      "interface:ifb1",
    ]);
    const cpu0 = host?.children.find((c) => c.blueprint.id === "cpu:cpu0");
    expect(cpu0?.blueprint.properties).toEqual({ model: "AMD EPYC" });
    const metric = cpu0?.children.find((c) => c.blueprint.id === "edge1:cpu_time_ms_total:cpu0:user");
    expect(metric?.blueprint).toMatchObject({
      type: "m",
      typePath: "/f;edge1/mt;cpu_time_ms_total",
      collectionInterval: 10,
      properties: { feed: "edge1", metric: "cpu_time_ms_total", cpu: "cpu0", mode: "user" },
    });
    // Host-wide metrics, including the CPU total, sit on the host resource.
    const hostMetrics = host?.children.filter((c) => c.blueprint.type === "m").map((c) => c.blueprint.id);
    expect(hostMetrics).toContain("edge1:cpu_usage_percent:total");
    expect(hostMetrics).toContain("edge1:memory_available_bytes");
  });

  test("new values do not change it; a resource that goes away does", () => {
    const a = digestStructure(structureAt(VM_T0));
    expect(digestStructure(structureAt(VM_T1)).digest).toBe(a.digest);
    expect(digestStructure(structureAt(VM_T0, [...DEFAULT_HOST_EXCLUDES, "*:ifb1"])).digest).not.toBe(a.digest);
  });
});

describe("synced to a collector", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector();
  });
  afterAll(async () => {
    await col.close();
  });

  test("POST /sync applies it and traversal shows the host's resources and metrics", async () => {
    const s = structureAt(VM_T0);
    const res = await col.req("/svc/inventory/sync/f;edge1", { method: "POST", json: { structure: structureToJson(s) }, tenant: "acme" });
    expect(res.status).toBe(204);
    const resources = await body(
      await col.req("/svc/inventory/traversal/f;edge1/r;host/type=r", { tenant: "acme" }),
    );
    expect(resources.map((r: { id: string }) => r.id).sort()).toContain("filesystem:/");
    const metrics = await body(await col.req(`/svc/inventory/traversal/f;edge1/r;host/r;${encodeURIComponent("cpu:cpu1")}/type=m`, { tenant: "acme" }));
    expect(metrics.length).toBe(11);
    const treeHash = await body(await col.req("/svc/inventory/entity/f;edge1/treeHash", { tenant: "acme" }));
    expect(treeHash.hash).toBe(structureHashTree(s, CanonicalPath.parse("/t;acme/f;edge1")).hashes.syncHash);
  });
});

describe("agent version", () => {
  test("is a property of the feed when given (the console's fleet page reads it); absent otherwise", () => {
    const { facts, sample } = sampleAt(VM_T0);
    const withVersion = buildHostStructure({ feed: "edge1", facts, series: sample.series, collectionIntervalSeconds: 10, agentVersion: "1.2.3" });
    expect(withVersion.root.blueprint.properties).toEqual({ agentVersion: "1.2.3" });
    expect(structureAt(VM_T0).root.blueprint.properties).toBeUndefined();
  });
});
