#!/usr/bin/env bun
/**
 * Runs the benchmarks one after another, each in its own process so that one cannot warm or
 * pollute the next, and prints the machine first so every figure has its context.
 * Usage: npm run bench [-- name ...]   (names are bench/<name>.ts files and the 10× variants
 * below; default: all)
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, freemem, totalmem } from "node:os";
import { join } from "node:path";

const dir = import.meta.dir;
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.slice(0, -3));
/** The 10× runs of benchmarks that take their scale from the environment or arguments. */
const variants: Record<string, { file: string; env?: Record<string, string>; args?: string[] }> = {
  "collector-mqtt-10x-series": { file: "collector-mqtt", env: { SERIES_PER_AGENT: "2000", DURATION: "30000" } },
  "data-path-10x": { file: "data-path", args: ["5000000"] },
};
const all = [...files, ...Object.keys(variants)].sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}

function machine(): string {
  const c = cpus();
  let load = "";
  try {
    load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {}
  return [
    `cpu: ${c[0]?.model ?? "?"} × ${c.length}`,
    `memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} free)`,
    `runtime: Bun ${Bun.version}`,
    load ? `load average: ${load}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

console.log(`# Outpost benchmarks, ${new Date().toISOString()}\n${machine()}\n`);
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n## ${name}\n`);
  const v = variants[name];
  const p = Bun.spawnSync([process.execPath, join(dir, `${v?.file ?? name}.ts`), ...(v?.args ?? [])], {
    env: { ...process.env, ...v?.env },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (p.exitCode !== 0) {
    failed++;
    console.log(`(${name} exited with ${p.exitCode})`);
  }
}
process.exit(failed ? 1 : 0);
