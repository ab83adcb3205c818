/**
 * Alerting engine throughput: data points evaluated per second against 1,000 enabled triggers.
 * Run: node_modules/.bin/bun bench/alerts-engine.ts
 *
 * Data are generated before timing. Each batch carries one point per dataId, timestamps one
 * second apart (so the minimum reporting interval drops nothing). Values cross thresholds now
 * and then, so dampening runs its true path and alerts are really built.
 */
import {
  type ConditionInput,
  completeConditions,
  completeDampening,
  createAlertsEngine,
  type EngineData,
  type FullTrigger,
  type Trigger,
} from "../src/alerts/index.ts";
import { uniform } from "../test/helpers/series.ts";

const TENANT = "bench";
const TRIGGERS = 1000;

function trigger(id: string, extra: Partial<Trigger> = {}): Trigger {
  return {
    tenantId: TENANT,
    id,
    name: id,
    type: "STANDARD",
    eventType: "ALERT",
    severity: "MEDIUM",
    autoDisable: false,
    autoEnable: false,
    autoResolve: false,
    autoResolveAlerts: false,
    autoResolveMatch: "ALL",
    firingMatch: "ALL",
    enabled: true,
    ...extra,
  };
}

function full(id: string, conditions: ConditionInput[], strict = 3, extra: Partial<Trigger> = {}): FullTrigger {
  return {
    trigger: trigger(id, extra),
    conditions: completeConditions(TENANT, id, conditions),
    dampenings: [
      completeDampening(TENANT, id, { triggerMode: "FIRING", type: "STRICT", evalTrueSetting: strict, evalTotalSetting: strict, evalTimeSetting: 0 }),
    ],
  };
}

const threshold = (dataId: string, t: number): ConditionInput => ({ type: "THRESHOLD", triggerMode: "FIRING", dataId, operator: "GT", threshold: t });

interface Workload {
  name: string;
  describe: string;
  triggers: FullTrigger[];
  dataIds: string[];
  value: (r: () => number, i: number) => number | string;
}

function workloads(): Workload[] {
  const single: Workload = {
    name: "threshold",
    describe: "1,000 triggers, one THRESHOLD condition each (GT 95) on its own dataId, STRICT(3); values uniform 0..100",
    triggers: Array.from({ length: TRIGGERS }, (_, i) => full(`t${i}`, [threshold(`m${i}`, 95)])),
    dataIds: Array.from({ length: TRIGGERS }, (_, i) => `m${i}`),
    value: (r) => r() * 100,
  };

  const mixedTriggers: FullTrigger[] = [];
  for (let i = 0; i < TRIGGERS; i++) {
    const m = `m${i}`;
    const m2 = `m${(i + 1) % TRIGGERS}`;
    let conds: ConditionInput[];
    switch (i % 6) {
      case 0:
        conds = [threshold(m, 95)];
        break;
      case 1:
        conds = [
          {
            type: "RANGE",
            triggerMode: "FIRING",
            dataId: m,
            operatorLow: "INCLUSIVE",
            operatorHigh: "EXCLUSIVE",
            thresholdLow: 2,
            thresholdHigh: 98,
            inRange: false,
          },
        ];
        break;
      case 2:
        conds = [{ type: "RATE", triggerMode: "FIRING", dataId: m, direction: "NA", period: "SECOND", operator: "GT", threshold: 90 }];
        break;
      case 3:
        conds = [{ type: "COMPARE", triggerMode: "FIRING", dataId: m, operator: "GT", data2Id: m2, data2Multiplier: 10 }];
        break;
      case 4:
        conds = [{ type: "NELSON", triggerMode: "FIRING", dataId: m, activeRules: ["Rule1"], sampleSize: 50 }];
        break;
      default:
        conds = [threshold(m, 50), { type: "THRESHOLD", triggerMode: "FIRING", dataId: m2, operator: "LT", threshold: 3 }];
        break;
    }
    const autoResolve = i % 2 === 0;
    // auto-resolving triggers get a way back: the value falling under 50
    if (autoResolve) conds.push({ type: "THRESHOLD", triggerMode: "AUTORESOLVE", dataId: m, operator: "LT", threshold: 50 });
    mixedTriggers.push(full(`t${i}`, conds, 2, { autoResolve }));
  }
  const mixed: Workload = {
    name: "mixed",
    describe:
      "1,000 triggers in equal shares: THRESHOLD, RANGE (outside), RATE, COMPARE (two dataIds), NELSON (Rule1), two-condition ALL; STRICT(2); half autoResolve (back to FIRING when the value < 50)",
    triggers: mixedTriggers,
    dataIds: Array.from({ length: TRIGGERS }, (_, i) => `m${i}`),
    value: (r) => r() * 100,
  };

  const fanout: Workload = {
    name: "fan-out",
    describe: "1,000 THRESHOLD triggers over 100 dataIds (10 triggers read each datum), thresholds 90..99, STRICT(3)",
    triggers: Array.from({ length: TRIGGERS }, (_, i) => full(`t${i}`, [threshold(`m${i % 100}`, 90 + (i % 10))])),
    dataIds: Array.from({ length: 100 }, (_, i) => `m${i}`),
    value: (r) => r() * 100,
  };
  return [single, mixed, fanout];
}

function run(w: Workload, totalPoints: number): void {
  let now = 1_700_000_000_000;
  let alerts = 0;
  let id = 0;
  const engine = createAlertsEngine({
    clock: () => now,
    idGenerator: () => String(++id),
    listener: (e) => {
      if (e.kind === "alert") alerts++;
    },
  });
  for (const t of w.triggers) engine.loadTrigger(t);

  const r = uniform(42);
  const batchSize = w.dataIds.length;
  const batches: EngineData[][] = [];
  let ts = now;
  for (let n = 0; n < totalPoints; n += batchSize) {
    ts += 1000;
    batches.push(w.dataIds.map((dataId, i) => ({ tenantId: TENANT, id: dataId, timestamp: ts, value: w.value(r, i) })));
  }
  // numeric strings, as they come over HTTP, for a second pass
  const stringBatches = batches.map((b) => b.map((d) => ({ ...d, value: String(d.value), timestamp: d.timestamp + batches.length * 1000 })));

  const warm = Math.min(50, batches.length);
  for (let i = 0; i < warm; i++) engine.sendData(batches[i]!);

  const measure = (list: EngineData[][], from: number) => {
    const before = engine.stats();
    const a0 = alerts;
    const t0 = performance.now();
    let points = 0;
    for (let i = from; i < list.length; i++) {
      now += 1000;
      engine.sendData(list[i]!);
      points += list[i]!.length;
    }
    const ms = performance.now() - t0;
    const after = engine.stats();
    return { points, ms, evals: after.evaluations - before.evaluations, alerts: alerts - a0 };
  };

  const numeric = measure(batches, warm);
  const strings = measure(stringBatches, 0);
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  console.log(`\n[${w.name}] ${w.describe}`);
  console.log(`  batches of ${batchSize} points; ${engine.stats().activeTriggers} enabled triggers`);
  for (const [label, m] of [
    ["numeric values", numeric],
    ["numeric strings", strings],
  ] as const) {
    console.log(
      `  ${label.padEnd(16)} ${fmt(m.points)} points in ${m.ms.toFixed(0)} ms: ${fmt((m.points / m.ms) * 1000)} points/s, ` +
        `${fmt((m.evals / m.ms) * 1000)} condition evaluations/s, ${fmt(m.alerts)} alerts fired`,
    );
  }
  engine.close();
}

const total = Number(process.argv[2] ?? 2_000_000);
console.log(`alerts engine benchmark: ${total.toLocaleString("en-US")} points per workload, Bun ${process.versions.bun ?? "?"}, one thread`);
for (const w of workloads()) run(w, total);
