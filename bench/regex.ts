/**
 * User regular expressions: RE2 (re2js, what Outpost uses) against the backtracking RegExp
 * engine, on realistic tag filters and on the hostile patterns RE2 is there for.
 * Run: node_modules/.bin/bun bench/regex.ts
 */
import { MAX_PROGRAM_SIZE, UserPattern } from "../src/regex/user-pattern.ts";

const values: string[] = [];
for (let i = 0; i < 20_000; i++) values.push(`host-${i % 500}.dc${i % 7}.example.com:cpu.${i % 16}.usage`);
const filters = ["host-1.*", ".*dc3.*", "host-(12|13|14)\\..*usage", "[a-z]+-[0-9]+\\.dc[0-6]\\..*", "web|db|cache"];

function rate(test: (p: string) => (v: string) => boolean): { perSecond: number; compileUs: number } {
  const rounds = 5;
  let t0 = performance.now();
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    for (const f of filters) {
      const m = test(f);
      for (const v of values) if (m(v)) n++;
    }
  }
  const perSecond = (rounds * filters.length * values.length) / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let i = 0; i < 2000; i++) test(`host-${i}.*`);
  return { perSecond: n >= 0 ? perSecond : 0, compileUs: ((performance.now() - t0) / 2000) * 1000 };
}

const re2 = rate((p) => {
  const u = UserPattern.compile(p);
  return (v) => u.test(v);
});
const native = rate((p) => {
  const r = new RegExp(`^(?:${p})$`);
  return (v) => r.test(v);
});
console.log("realistic tag filters, 5 patterns × 20,000 values:");
console.log(`  re2js (Outpost)   ${(re2.perSecond / 1e6).toFixed(2)} M matches/s, compile ${re2.compileUs.toFixed(1)} µs`);
console.log(`  RegExp (backtrack) ${(native.perSecond / 1e6).toFixed(2)} M matches/s, compile ${native.compileUs.toFixed(1)} µs`);

console.log("\nthe hostile case of issue 13: (a+)+$ over 20 ids 'aaa…a!' (30 to 49 a's):");
const ids = Array.from({ length: 20 }, (_, i) => `${"a".repeat(30 + i)}!`);
let t0 = performance.now();
const evil = UserPattern.compile("(a+)+$");
for (const id of ids) evil.test(id);
console.log(`  re2js: ${(performance.now() - t0).toFixed(2)} ms for all 20`);
for (const n of [20, 22, 24, 26]) {
  const r = /^(?:(a+)+$)$/;
  t0 = performance.now();
  r.test(`${"a".repeat(n)}!`);
  console.log(`  RegExp: ${(performance.now() - t0).toFixed(1)} ms for one id of ${n} a's (doubles per a: 49 a's would take years)`);
}

console.log(`\nworst patterns within the bounds (program ≤ ${MAX_PROGRAM_SIZE} instructions), per 1,000-character value:`);
for (const p of [".{0,490}.{0,490}b", "(?:a?){600}a{600}", "(?:a|aa){480}c", "(.*a){20}", "host-(web|db|cache)-[0-9]{1,4}"]) {
  const u = UserPattern.compile(p);
  t0 = performance.now();
  u.test("a".repeat(1000));
  const first = performance.now() - t0;
  t0 = performance.now();
  for (let k = 0; k < 20; k++) u.test(`${"a".repeat(999)}${k % 10}`);
  const later = (performance.now() - t0) / 20;
  console.log(`  ${p.padEnd(32)} (${u.programSize} instructions) first value ${first.toFixed(2)} ms, later values ${later.toFixed(2)} ms each`);
}
