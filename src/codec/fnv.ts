/** FNV-1a over the UTF-16 code units of s[start, end), as an unsigned 32-bit number. */
export function fnv1a(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
