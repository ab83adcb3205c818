/**
 * Schemas of structured options (an option of kind "table", such as the agent's inputs): nested
 * tables, arrays of tables (`[[agent.inputs.prometheus]]`), maps of strings and lists, with
 * the same scalar kinds, bounds and one-line errors as the flat options. Keys are written in
 * snake_case, as in Prometheus' and Telegraf's files (kebab-case is accepted too); an unknown
 * key is refused with the closest valid one. Pure: the agent reads its file with it, and the
 * collector can check a configuration with the same schema before sending it.
 */
import { suggestion } from "./closest.ts";
import { convertOption, OptionError, type OptionSpec, type TableValue } from "./options.ts";

export type FieldKind = "string" | "int" | "boolean" | "duration" | "size" | "list" | "numbers" | "map" | "table" | "tables";

export interface FieldSpec {
  /** snake_case key. */
  name: string;
  kind: FieldKind;
  help: string;
  default?: string | number | boolean | string[] | number[] | Record<string, string>;
  required?: boolean;
  /** Inclusive bounds of an int, a duration (ms), a size (bytes) or each of `numbers`. */
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** The fields of a table, or of each table of `tables`. */
  fields?: readonly FieldSpec[];
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fail(where: string, why: string): never {
  throw new OptionError(`${where}: ${why}`);
}

function field(spec: FieldSpec, raw: unknown, where: string): unknown {
  switch (spec.kind) {
    case "table":
      return readTable(spec.fields ?? [], raw, where);
    case "tables": {
      // One table alone stands for a list of one (`[agent.inputs.prometheus]` written once).
      const list = isTable(raw) ? [raw] : raw;
      if (!Array.isArray(list)) return fail(where, "expected a list of tables ([[...]] sections)");
      return list.map((t, i) => readTable(spec.fields ?? [], t, `${where}[${i}]`));
    }
    case "map": {
      if (!isTable(raw)) return fail(where, "expected a table of strings");
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") fail(`${where}.${k}`, "expected a string");
        out[k] = String(v);
      }
      return out;
    }
    case "numbers": {
      if (!Array.isArray(raw)) return fail(where, "expected a list of numbers");
      return raw.map((v, i) => {
        const n = typeof v === "number" ? v : Number.NaN;
        if (!Number.isFinite(n)) fail(`${where}[${i}]`, `${JSON.stringify(v)} is not a number`);
        if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) fail(`${where}[${i}]`, `${n} must be between ${spec.min} and ${spec.max}`);
        return n;
      });
    }
    default:
      return convertOption({ name: spec.name, kind: spec.kind, help: spec.help, min: spec.min, max: spec.max, choices: spec.choices } satisfies OptionSpec, raw, where);
  }
}

/** Checks a table against its fields and returns it with defaults filled in and keys in snake_case. */
export function readTable(fields: readonly FieldSpec[], raw: unknown, where: string): TableValue {
  if (raw === undefined) raw = {};
  if (!isTable(raw)) return fail(where, "expected a table");
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = key.replace(/-/g, "_");
    const spec = byName.get(name);
    if (!spec) fail(`${where}.${key}`, `unknown key (${suggestion(name, byName.keys())})`);
    out[name] = field(spec, value, `${where}.${name}`);
  }
  for (const f of fields) {
    if (f.name in out) continue;
    if (f.required) fail(where, `${f.name} is required`);
    if (f.default !== undefined) out[f.name] = field(f, f.default, `default of ${where}.${f.name}`);
    else if (f.kind === "table") out[f.name] = readTable(f.fields ?? [], {}, `${where}.${f.name}`);
    else if (f.kind === "tables") out[f.name] = [];
  }
  return out;
}
