/**
 * Which host series to collect: a series key (`name` or `name:instance[:dimension]`, the metric id
 * without the feed) is kept when it matches an include pattern and no exclude pattern. Patterns
 * are globs over the whole key: `*` any run of characters, `?` one character.
 */
export interface SeriesSelection {
  includes(key: string): boolean;
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

export function seriesSelection(include: readonly string[], exclude: readonly string[]): SeriesSelection {
  const inc = include.map(globToRegExp);
  const exc = exclude.map(globToRegExp);
  return { includes: (key) => inc.some((r) => r.test(key)) && !exc.some((r) => r.test(key)) };
}
