/**
 * TOML manifests (Cargo.toml, pyproject.toml) read with a real parser: the regular expressions
 * that read them before missed keys in an order they did not expect (a `[[bin]]` whose `path`
 * follows a multi-line `required-features` array). What onboarding reads of a manifest is a few
 * keys, looked up here without trusting their types: a manifest is the repository's text.
 */
import { parse } from "smol-toml";

export type Table = Readonly<Record<string, unknown>>;

/**
 * The document's top table, or null when the text is not TOML: a manifest that does not parse
 * says nothing, like one that cannot be read, and never fails onboarding.
 */
export function readToml(text: string): Table | null {
  try {
    // `__proto__`/`constructor` keys are dropped: the objects are plain and looked up by name.
    return parse(text, { unsafeKeyBehaviour: "drop" });
  } catch {
    return null;
  }
}

/** `value` when it is a table (not an array, not a date). */
export function tableAt(value: unknown): Table | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)
    ? (value as Table)
    : undefined;
}

/** The table at a dotted path of keys (`tool.poetry`), or undefined. */
export function tableIn(root: Table | null | undefined, ...keys: string[]): Table | undefined {
  let at: Table | undefined = root ?? undefined;
  for (const key of keys) at = tableAt(at?.[key]);
  return at;
}

export function stringAt(table: Table | undefined, key: string): string | undefined {
  const v = table?.[key];
  return typeof v === "string" ? v : undefined;
}

/** The strings of an array value (other elements skipped), or undefined when it is no array. */
export function stringsAt(table: Table | undefined, key: string): string[] | undefined {
  const v = table?.[key];
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined;
}
