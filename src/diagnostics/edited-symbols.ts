/**
 * The symbols an edit plan changes, found from where its text edits land: for an edit that does
 * not say which symbols it changes (replace_content, create_text_file over a file, a code action),
 * so that the diagnostics delta also checks the files that use them. Measured before this: a
 * replace_content that changed `getDefaultOptions`' return type in date-fns and zod reported
 * "no new errors, complete" while the importers broke.
 */
import type { Range } from "vscode-languageserver-protocol";
import type { EditPlan } from "../edits/plan.js";
import type { Project } from "../project/project.js";
import type { SymbolNode } from "../symbols/tree.js";
import { lineStarts, offsetAt, positionAt } from "../text/positions.js";
import type { ChangedSymbol } from "./delta.js";

/** Symbols whose users are looked for; more are named in the delta's incomplete_reason. */
export const maxEditedSymbols = 8;

export interface EditedSymbols {
  symbols: ChangedSymbol[];
  /** Why some changed symbols' users were not looked for. */
  left?: string;
}

const before = (a: Range["start"], b: Range["start"]) =>
  a.line < b.line || (a.line === b.line && a.character < b.character);
const overlaps = (a: Range, b: Range) => !before(a.end, b.start) && !before(b.end, a.start);

/**
 * The declaration an edit at `range` changes for other files: the outermost symbol holding it,
 * then the member of a type (class, interface, namespace…) holding it; never a local.
 */
function changedBy(roots: readonly SymbolNode[], range: Range): SymbolNode[] {
  const out: SymbolNode[] = [];
  const visit = (nodes: readonly SymbolNode[]) => {
    for (const n of nodes) {
      if (n.local || !overlaps(n.range, range)) continue;
      const members = n.children.filter((c) => !c.local && overlaps(c.range, range));
      // A type's member is what changed when the edit lies inside one; a function's children are its own.
      if (members.length > 0 && n.children.some((c) => !c.local) && !isCallable(n)) visit(members);
      else out.push(n);
    }
  };
  visit(roots);
  return out;
}

function isCallable(n: SymbolNode): boolean {
  return n.kind === "Function" || n.kind === "Method" || n.kind === "Constructor";
}

/** The symbols `plan`'s text edits change, as the server knows them now (before the write). */
export async function editedSymbols(
  project: Project,
  plan: EditPlan,
  signal?: AbortSignal,
): Promise<EditedSymbols> {
  const found: ChangedSymbol[] = [];
  const names: string[] = [];
  for (const op of plan) {
    if (op.kind !== "edit" || project.pool.adapterForPath(op.path.rel) === null) continue;
    let file: Awaited<ReturnType<typeof project.symbols.open>>;
    try {
      file = await project.symbols.open(await project.symbols.file(op.path, signal), signal, false);
    } catch {
      continue; // no server for it now: the touched file itself is still compared
    }
    // The plan's ranges are positions in the text it was computed against.
    const text = op.expectedText ?? file.text;
    if (text !== file.doc.text) continue;
    const starts = lineStarts(text);
    const seen = new Set<SymbolNode>();
    for (const e of op.edits) {
      // Normalised through offsets: a range past a line's end still lands on the right symbol.
      const range = {
        start: positionAt(text, offsetAt(text, e.range.start, starts), starts),
        end: positionAt(text, offsetAt(text, e.range.end, starts), starts),
      };
      for (const n of changedBy(file.roots, range)) {
        if (seen.has(n)) continue;
        seen.add(n);
        names.push(`${op.path.rel} ${n.namePath}`);
        found.push({ session: file.session, uri: file.doc.uri, position: n.selectionRange.start });
      }
    }
  }
  if (found.length <= maxEditedSymbols) return { symbols: found };
  return {
    symbols: found.slice(0, maxEditedSymbols),
    left: `the edit changes ${found.length} symbols; files using ${names.slice(maxEditedSymbols, maxEditedSymbols + 3).join(", ")}${found.length > maxEditedSymbols + 3 ? ", …" : ""} were not looked for`,
  };
}
