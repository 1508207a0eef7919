/**
 * LSP SymbolKind numbers ⇄ the names used in tool parameters and results. LSP has no kind for a
 * type alias: `TypeParameter` names them (rust-analyzer's choice; the TypeScript adapter maps
 * tsls's `Variable` for `type X = …` to it), so `include_kinds: ["TypeParameter"]` finds them.
 */
import { AppError } from "../core/errors.js";

const names = [
  "File",
  "Module",
  "Namespace",
  "Package",
  "Class",
  "Method",
  "Property",
  "Field",
  "Constructor",
  "Enum",
  "Interface",
  "Function",
  "Variable",
  "Constant",
  "String",
  "Number",
  "Boolean",
  "Array",
  "Object",
  "Key",
  "Null",
  "EnumMember",
  "Struct",
  "Event",
  "Operator",
  "TypeParameter",
] as const;

export type KindName = (typeof names)[number];

export function kindName(kind: number): string {
  return names[kind - 1] ?? "Unknown";
}

/**
 * A kinds parameter's names, one or a list, checked here rather than by an enum in the schema: the
 * 26 names listed in every tool that filters by kind cost more of each session than they help
 * (issue 19); a wrong one is refused with all of them.
 */
export function checkKinds(given: string | readonly string[], param: string): Set<string> {
  const list = typeof given === "string" ? [given] : given;
  for (const k of list) {
    if (!names.includes(k as KindName)) {
      throw new AppError(
        "invalid_argument",
        `Unknown symbol kind '${k}' in ${param}. Valid kinds (LSP SymbolKind names): ${names.join(", ")}.`,
      );
    }
  }
  return new Set(list);
}

/** Kinds whose bodies hold statements: their Variable/Constant children are locals. */
export const callableKinds = new Set(["Function", "Method", "Constructor"]);

/** Declarations that may contain a reference and be reported as its containing symbol. */
export const containerKinds = new Set([
  "Function",
  "Method",
  "Constructor",
  "Class",
  "Interface",
  "Namespace",
  "Module",
  "Property",
  "Field",
  "Enum",
  "EnumMember",
  "Struct",
  "Variable",
  "Constant",
  "Object",
  "TypeParameter",
]);
