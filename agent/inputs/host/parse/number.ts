/** A decimal field of a /proc file; NaN when absent or blank (plain Number() reads "" as 0). */
export function field(s: string | undefined): number {
  return s === undefined || s.trim() === "" ? Number.NaN : Number(s);
}
