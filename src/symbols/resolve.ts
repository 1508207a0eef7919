/**
 * Name-path resolution on one file's tree: every match of a pattern, or exactly one symbol with a
 * "did you mean" error otherwise.
 */
import { editDistance } from "../core/did-you-mean.js";
import { AppError } from "../core/errors.js";
import { matchesNamePath, parseNamePath } from "./name-path.js";
import { type SymbolNode, walk } from "./tree.js";

export function matchSymbols(roots: readonly SymbolNode[], pattern: string, substring = false): SymbolNode[] {
  const parsed = parseNamePath(pattern);
  // A node's last step is its own name (never an alias): only nodes of that name have their path
  // built (each path is made anew when asked: for zod's 5,000-line types.ts, 1.4 ms of every warm
  // call that names one of its symbols).
  const last = parsed.segments.at(-1)?.name;
  const named = (n: SymbolNode) =>
    last === undefined || (substring ? n.name.includes(last) : n.name === last);
  return [...walk(roots)].filter((n) => named(n) && matchesNamePath(parsed, n.path, substring));
}

/**
 * The one symbol `namePath` names in a file's tree (`rel` for messages), or an error that says
 * what to do. `overloadsAsOne`: a name that matches only the overloads of one function resolves to
 * it — for tools that ask the compiler about the symbol (references, rename, implementations), not
 * for those that edit one declaration's text.
 */
export function resolveIn(
  roots: readonly SymbolNode[],
  rel: string,
  namePath: string,
  overloadsAsOne = false,
): SymbolNode {
  const found = matchSymbols(roots, namePath);
  if (found.length === 1) return found[0]!;
  const overloaded = overloadsAsOne ? oneOverloadedFunction(roots, found) : null;
  if (overloaded) return overloaded;
  if (found.length === 0) {
    const last = parseNamePath(namePath).segments.at(-1)?.name.toLowerCase() ?? "";
    const all = [...walk(roots)].filter((n) => !n.local);
    const close = all
      .filter((n) => {
        const name = n.name.toLowerCase();
        return name.includes(last) || last.includes(name) || editDistance(name, last, 2) <= 2;
      })
      .slice(0, 8)
      .map((n) => n.namePath);
    const hint =
      close.length > 0
        ? ` Close matches: ${close.join(", ")}.`
        : ` Top-level symbols there: ${roots
            .slice(0, 12)
            .map((n) => n.namePath)
            .join(", ")}.`;
    throw new AppError(
      "symbol_not_found",
      `Symbol '${namePath}' not found in ${rel}.${hint} Use get_symbols_overview on the file to see its name paths.`,
    );
  }
  const listed = found
    .slice(0, 10)
    .map((n) => `${n.namePath} (${n.kind}, line ${n.range.start.line + 1})`)
    .join("; ");
  throw new AppError(
    "ambiguous_symbol",
    `'${namePath}' matches ${found.length} symbols in ${rel}: ${listed}. Repeat the call with one of these name paths (an index such as 'name[0]' picks among overloads).`,
    { candidates: found.map((n) => n.namePath) },
  );
}

const overloadKinds = new Set(["Function", "Method", "Constructor"]);

/**
 * The symbol that overload signatures declare together, or null when `found` is not such a set.
 * To the compiler the signatures and the implementation of a function are one symbol (rxjs
 * `innerFrom`, `executeSchedule`: references and rename answer the same from any of them), so a
 * bare name that matches only them is not ambiguous. They must be consecutive siblings of one
 * parent with one name, all functions or all methods. The implementation is picked: the one with
 * a body spans the most lines (in a declaration file, where none has, the first signature).
 */
function oneOverloadedFunction(
  roots: readonly SymbolNode[],
  found: readonly SymbolNode[],
): SymbolNode | null {
  const first = found[0];
  if (!first || found.length < 2 || !overloadKinds.has(first.kind)) return null;
  if (found.some((n) => n.name !== first.name || n.kind !== first.kind || n.parent !== first.parent))
    return null;
  const siblings = first.parent?.children ?? roots;
  const at = found.map((n) => siblings.indexOf(n)).sort((a, b) => a - b);
  if (at.some((i, k) => i < 0 || (k > 0 && i !== at[k - 1]! + 1))) return null;
  const span = (n: SymbolNode) => n.range.end.line - n.range.start.line;
  return at.map((i) => siblings[i]!).reduce((best, n) => (span(n) > span(best) ? n : best));
}
