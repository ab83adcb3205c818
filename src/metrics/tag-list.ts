import { ApiError } from "../http/errors.ts";

/**
 * Parses the `tag-list` format of the `tags` query parameter and of `/tags/{tags}` paths:
 * comma-separated `name:value` pairs, split at the first colon. The value is URL-decoded once
 * more (as upstream does), so `%2C`, `%3A` and `%2F` stand for `,` `:` and `/`, and `+` for a
 * space. A bare name (a token without a colon) means "has this tag", the value `*`: what a bare
 * name means in the tag query language too, so `tags=novalue` selects the same metrics in both
 * syntaxes (docs/compatibility.md). A trailing comma is tolerated, like upstream; a leading or
 * doubled comma, an empty name, or a blank name or value is a 400. A repeated name keeps its
 * last value. The empty string is an empty list (the caller decides whether that is allowed).
 */
export function parseTagList(text: string): Map<string, string> {
  const tags = new Map<string, string>();
  if (text === "") return tags;
  const invalid = () => new ApiError(400, `Invalid tags: ${text}`);
  if (text.trim() === "") throw invalid();
  const tokens = text.split(",");
  // "a:1," splits into ["a:1", ""]: only that last empty token is allowed.
  const last = tokens.length > 1 && tokens[tokens.length - 1] === "" ? tokens.length - 1 : tokens.length;
  for (let i = 0; i < last; i++) {
    const token = tokens[i]!;
    const colon = token.indexOf(":");
    if (colon === 0) throw invalid();
    const name = colon < 0 ? token : token.slice(0, colon);
    const value = colon < 0 ? "*" : decodeTagValue(token.slice(colon + 1), text);
    if (name.trim() === "" || value.trim() === "") throw invalid();
    tags.set(name, value);
  }
  return tags;
}

/**
 * Parses the `{names}` of `DELETE /{type}/{id}/tags/{names}`: comma-separated names, each
 * optionally followed by `:value`, which is ignored. An empty or blank token (so `,` and a
 * trailing comma), an empty name (`:5`) or a second colon is a 400.
 */
export function parseTagNames(text: string): string[] {
  const names = new Set<string>();
  for (const token of text.split(",")) {
    const parts = token.split(":");
    const name = parts[0]!;
    if (token.trim() === "" || parts.length > 2 || name.trim() === "") {
      throw new ApiError(400, `Invalid tag list: ${text}`);
    }
    names.add(name);
  }
  return [...names];
}

/** application/x-www-form-urlencoded decoding: `+` is a space, `%XX` are UTF-8 bytes. */
function decodeTagValue(raw: string, whole: string): string {
  if (!raw.includes("%") && !raw.includes("+")) return raw;
  if (/%(?![0-9a-fA-F]{2})/.test(raw)) throw new ApiError(400, `Invalid tags: ${whole}`);
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    throw new ApiError(400, `Invalid tags: ${whole}`);
  }
}
