/** label_replace and label_join. */
import { compileRegex, LABEL_NAME_RE, type LiteralError } from "./literals.ts";
import { labelValue, withLabel } from "./labels.ts";
import { ExecutionError, type StepSeries } from "./values.ts";

/** Go's regexp Expand: $1, ${1}, $name, ${name}, $$; unknown groups expand to "". */
export function expandTemplate(template: string, m: RegExpExecArray): string {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== "$" || i + 1 >= template.length) {
      out += c;
      continue;
    }
    if (template[i + 1] === "$") {
      out += "$";
      i++;
      continue;
    }
    let name: string;
    let next: number;
    if (template[i + 1] === "{") {
      const close = template.indexOf("}", i + 2);
      name = close < 0 ? "" : template.slice(i + 2, close);
      next = close;
      if (close < 0 || !/^\w+$/.test(name)) {
        out += c;
        continue;
      }
    } else {
      const mm = /^\w+/.exec(template.slice(i + 1));
      if (!mm) {
        out += c;
        continue;
      }
      name = mm[0];
      next = i + name.length;
    }
    out += (/^\d+$/.test(name) ? m[Number(name)] : m.groups?.[name]) ?? "";
    i = next;
  }
  return out;
}

export function labelReplace(input: StepSeries[], dst: string, replacement: string, src: string, pattern: string): StepSeries[] {
  let re: RegExp;
  try {
    re = compileRegex(pattern);
  } catch (e) {
    throw new ExecutionError(`invalid regular expression in label_replace(): ${(e as LiteralError).message}`);
  }
  if (!LABEL_NAME_RE.test(dst) && dst !== "__name__") throw new ExecutionError(`invalid destination label name in label_replace(): ${dst}`);
  return input.map((s) => {
    const m = re.exec(labelValue(s.labels, src));
    return m ? { ...s, labels: withLabel(s.labels, dst, expandTemplate(replacement, m)) } : s;
  });
}

export function labelJoin(input: StepSeries[], dst: string, sep: string, srcs: string[]): StepSeries[] {
  if (!LABEL_NAME_RE.test(dst)) throw new ExecutionError(`invalid destination label name in label_join(): ${dst}`);
  return input.map((s) => ({ ...s, labels: withLabel(s.labels, dst, srcs.map((l) => labelValue(s.labels, l)).join(sep)) }));
}
