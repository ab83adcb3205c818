/**
 * Percent encoding of path segment ids (research §3.2): `A-Z a-z 0-9 - . _ ~ : @` stay as they
 * are, every other character becomes its UTF-8 bytes as `%XX` with upper-case hex.
 */

export class PathError extends Error {}

const SAFE = /[A-Za-z0-9\-._~:@]/;
const HEX = "0123456789ABCDEF";
const utf8 = new TextEncoder();

export function encodeId(id: string): string {
  let out = "";
  for (const ch of id) {
    if (SAFE.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of utf8.encode(ch)) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return out;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes `%XX` sequences (either hex case); malformed escapes or invalid UTF-8 are a PathError. */
export function decodeId(s: string): string {
  if (!s.includes("%")) return s;
  const bytes: number[] = [];
  let out = "";
  const flush = () => {
    if (bytes.length === 0) return;
    try {
      out += strictUtf8.decode(new Uint8Array(bytes));
    } catch {
      throw new PathError(`Invalid percent-encoded UTF-8 in '${s}'`);
    }
    bytes.length = 0;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== "%") {
      flush();
      out += c;
      continue;
    }
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new PathError(`Malformed percent escape at position ${i} of '${s}'`);
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  flush();
  return out;
}
