/**
 * Release versions: MAJOR.MINOR.PATCH with an optional pre-release (`-rc.1`) and build (`+abc`)
 * part, as package.json has them. They appear in URLs and file names, so nothing else is taken.
 */
const VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** Why `v` is not a release version, or undefined when it is one. */
export function versionProblem(v: string): string | undefined {
  if (v.length > 64) return "is longer than 64 characters";
  if (!VERSION.test(v)) return "is not a version such as 1.2.3 or 1.2.3-rc.1";
  return undefined;
}

/** Pre-release identifiers compare as numbers when both are, numbers before words (semver §11). */
function comparePre(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const x = a.split(".");
  const y = b.split(".");
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === undefined) return -1;
    if (y[i] === undefined) return 1;
    const nx = /^\d+$/.test(x[i]!);
    const ny = /^\d+$/.test(y[i]!);
    if (nx && ny && Number(x[i]) !== Number(y[i])) return Number(x[i]) < Number(y[i]) ? -1 : 1;
    if (nx !== ny) return nx ? -1 : 1;
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  }
  return 0;
}

/** <0, 0, >0 as a is older than, as old as, newer than b; build metadata is ignored. Throws on a non-version. */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION.exec(a);
  const mb = VERSION.exec(b);
  if (!ma || !mb) throw new Error(`not a version: ${ma ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(ma[i]) - Number(mb[i]);
    if (d !== 0) return d;
  }
  return comparePre(ma[4], mb[4]);
}
