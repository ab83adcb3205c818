import type { EntityBlueprint } from "../../src/inventory/blueprints.ts";
import { encodeId } from "../../src/inventory/path-codec.ts";
import type { InventoryStructure, StructureNode } from "../../src/inventory/structure-json.ts";
import type { HostMetricSpec, HostScope } from "../inputs/host/catalog.ts";
import type { HostResource, HostSeries } from "../inputs/host/series.ts";
import type { HostFacts } from "./host-facts.ts";

/** Resource types of a host feed: id and display name. */
export const HOST_RESOURCE_TYPES: Readonly<Record<HostScope | "input" | "scrape-target", string>> = {
  host: "Host",
  cpu: "CPU",
  disk: "Disk",
  filesystem: "Filesystem",
  interface: "Network interface",
  input: "Input",
  "scrape-target": "Scrape target",
};

/** What the agent's inputs show in the inventory: each input, and each scrape target with its health. */
export interface InputsInventory {
  targets: { job: string; url: string; instance: string; health: string; lastError?: string }[];
  otlp: boolean;
  influx: boolean;
  statsd?: { udp?: string; tcp?: string };
}

/** The inputs as resources under the host: `input:<name>`, scrape targets under `input:prometheus`. */
function inputResources(feedPath: string, inputs: InputsInventory): StructureNode[] {
  const input = (name: string, properties: Record<string, string | number>, children: StructureNode[] = []): StructureNode => ({
    blueprint: { type: "r", id: `input:${name}`, name, typePath: `${feedPath}/rt;input`, properties },
    children,
  });
  const out: StructureNode[] = [];
  if (inputs.targets.length > 0) {
    const targets = inputs.targets.map((t) =>
      leaf({
        type: "r",
        id: `scrape-target:${t.job}:${t.url}`,
        name: t.instance,
        typePath: `${feedPath}/rt;scrape-target`,
        properties: { job: t.job, url: t.url, health: t.health, ...(t.lastError ? { lastError: t.lastError } : {}) },
      }),
    );
    out.push(input("prometheus", { targets: targets.length, up: inputs.targets.filter((t) => t.health === "up").length }, targets.sort(byId)));
  }
  if (inputs.otlp) out.push(input("otlp", { path: "/v1/metrics" }));
  if (inputs.influx) out.push(input("influx", { path: "/write, /api/v2/write" }));
  if (inputs.statsd) out.push(input("statsd", { ...(inputs.statsd.udp ? { udp: inputs.statsd.udp } : {}), ...(inputs.statsd.tcp ? { tcp: inputs.statsd.tcp } : {}) }));
  return out;
}

/** The id of a host's resource: `host`, or `<scope>:<instance>` (`cpu:cpu0`, `filesystem:/boot`, `interface:eth0`). */
export function resourceId(r: HostResource): string {
  return r.scope === "host" ? "host" : `${r.scope}:${r.instance}`;
}

const leaf = (blueprint: EntityBlueprint): StructureNode => ({ blueprint, children: [] });
const byId = (a: StructureNode, b: StructureNode) => (a.blueprint.id < b.blueprint.id ? -1 : a.blueprint.id > b.blueprint.id ? 1 : 0);

function hostProperties(f: HostFacts, cpus: number): Record<string, string | number> {
  const p: Record<string, string | number> = { hostname: f.hostname, cpus };
  if (f.osType !== undefined) p.osType = f.osType;
  if (f.osName !== undefined) p.osName = f.osName;
  if (f.kernel !== undefined) p.kernel = f.kernel;
  if (f.machine !== undefined) p.machine = f.machine;
  return p;
}

function resourceProperties(r: HostResource, facts: HostFacts): Record<string, string> | undefined {
  if (r.scope === "cpu") {
    const model = facts.cpuModels.get(Number(r.instance.slice(3)));
    return model === undefined ? undefined : { model };
  }
  if (r.scope === "filesystem") return { mountPoint: r.instance, ...r.properties };
  if (r.scope === "disk") return { device: r.instance };
  if (r.scope === "interface") return { interface: r.instance };
  return undefined;
}

/**
 * The inventory of a host feed (research §3.6 structure): resource types, one metric type per
 * host metric in use, the `host` resource with one child resource per CPU, disk, filesystem and
 * interface, and under each resource its metrics. A metric's inventory id is its metric id and
 * its properties are the metric's tags. Paths to types are tenantless absolute paths
 * (`/f;<feed>/rt;cpu`), valid wherever the entity sits. Everything is sorted, so the same host
 * gives the same structure and the same hash.
 */
export function buildHostStructure(input: {
  feed: string;
  facts: HostFacts;
  series: readonly HostSeries[];
  collectionIntervalSeconds: number;
  /** The agent's release, a property of the feed (the console's fleet page shows it). */
  agentVersion?: string;
  inputs?: InputsInventory;
}): InventoryStructure {
  const { feed, facts, series } = input;
  const interval = input.collectionIntervalSeconds;
  const feedPath = `/f;${encodeId(feed)}`;

  const specs = new Map<string, HostMetricSpec>();
  const metricsByResource = new Map<string, StructureNode[]>();
  const resources = new Map<string, HostResource>();
  for (const s of series) {
    specs.set(s.spec.name, s.spec);
    const rid = resourceId(s.resource);
    resources.set(rid, s.resource);
    let list = metricsByResource.get(rid);
    if (!list) metricsByResource.set(rid, (list = []));
    list.push(
      leaf({
        type: "m",
        id: s.id,
        name: s.key,
        typePath: `${feedPath}/mt;${encodeId(s.spec.name)}`,
        collectionInterval: interval,
        properties: { ...s.tags },
      }),
    );
  }

  const resourceTypes = Object.entries(HOST_RESOURCE_TYPES).map(([id, name]) => leaf({ type: "rt", id, name }));
  const metricTypes = [...specs.values()].map((s) =>
    leaf({
      type: "mt",
      id: s.name,
      metricDataType: s.kind === "counter" ? "COUNTER" : "GAUGE",
      unit: s.unit,
      collectionInterval: interval,
      properties: { description: s.help },
    }),
  );

  const children: StructureNode[] = [];
  for (const [rid, r] of resources) {
    if (r.scope === "host") continue;
    const properties = resourceProperties(r, facts);
    children.push({
      blueprint: { type: "r", id: rid, name: r.instance, typePath: `${feedPath}/rt;${r.scope}`, ...(properties ? { properties } : {}) },
      children: (metricsByResource.get(rid) ?? []).sort(byId),
    });
  }
  const cpuCount = [...resources.values()].filter((r) => r.scope === "cpu").length || facts.cpuModels.size;
  const host: StructureNode = {
    blueprint: {
      type: "r",
      id: "host",
      name: facts.hostname,
      typePath: `${feedPath}/rt;host`,
      properties: hostProperties(facts, cpuCount),
    },
    children: [...(metricsByResource.get("host") ?? []).sort(byId), ...children.sort(byId), ...(input.inputs ? inputResources(feedPath, input.inputs) : [])],
  };
  return {
    root: {
      blueprint: { type: "f", id: feed, name: facts.hostname, ...(input.agentVersion ? { properties: { agentVersion: input.agentVersion } } : {}) },
      children: [...resourceTypes.sort(byId), ...metricTypes.sort(byId), host],
    },
  };
}
