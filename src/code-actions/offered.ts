/**
 * What a language server offers for some lines of a file: its code actions, asked with the
 * diagnostics of those lines in the context (servers offer quick fixes only for the diagnostics
 * they are given) and, unless the caller names kinds, once more for source actions (organize
 * imports, fix all), which servers leave out of an answer that names no kind.
 */
import type {
  CodeAction,
  CodeActionParams,
  Command,
  Diagnostic,
  Range,
} from "vscode-languageserver-protocol";
import { AppError } from "../core/errors.js";
import type { Project } from "../project/project.js";
import { type FileSymbols, fileSymbols } from "../symbols/access.js";
import { allLines } from "../text/lines.js";

export interface OfferedAction {
  title: string;
  kind?: string;
  /** The diagnostics this action fixes, as the server said (quick fixes). */
  diagnostics: Diagnostic[];
  preferred: boolean;
  /** The server's action (or bare command), to resolve and carry out. */
  raw: CodeAction | Command;
}

export interface Offered {
  file: FileSymbols;
  range: Range;
  actions: OfferedAction[];
  /** Why the list may miss actions (the server was loading, the diagnostics were not settled). */
  gap?: string;
}

export interface LinesQuery {
  relativePath: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine?: number;
  kinds?: readonly string[];
  signal: AbortSignal;
}

/** The source actions asked for besides the server's default answer. */
const sourceKind = "source";
const quickfix = "quickfix";
/** Diagnostics of the lines asked for their own quick fixes, at most. */
const perDiagnosticAsks = 5;

const sameRange = (a: Range, b: Range) =>
  a.start.line === b.start.line &&
  a.start.character === b.start.character &&
  a.end.line === b.end.line &&
  a.end.character === b.end.character;

/** From the first non-blank character of the first line to the last one of the last line. */
export function linesRange(text: string, startLine: number, endLine: number): Range {
  const lines = allLines(text);
  if (startLine > lines.length || endLine > lines.length) {
    throw new AppError(
      "invalid_argument",
      `The file has ${lines.length} lines; give start_line and end_line within them (1-based).`,
    );
  }
  if (endLine < startLine) throw new AppError("invalid_argument", "end_line must not be before start_line.");
  const first = lines[startLine - 1]!;
  const last = lines[endLine - 1]!;
  const start = first.length - first.trimStart().length;
  return {
    start: { line: startLine - 1, character: start === first.length ? 0 : start },
    end: { line: endLine - 1, character: last.trimEnd().length },
  };
}

const overlaps = (d: Diagnostic, r: Range) =>
  d.range.start.line <= r.end.line && d.range.end.line >= r.start.line;

export async function offeredActions(project: Project, q: LinesQuery): Promise<Offered> {
  const path = project.sandbox.resolve(q.relativePath, { mustExist: true, kind: "file" });
  const file = await fileSymbols(project, path, q.signal);
  const session = file.session;
  if (!session.capabilities.codeActionProvider) {
    throw new AppError(
      "not_supported",
      `The ${file.adapter.displayName} language server offers no code actions; nothing to list or apply.`,
    );
  }
  const range = linesRange(file.doc.text, q.startLine, q.endLine ?? q.startLine);
  const checked = await session.diagnostics(path.abs);
  const diagnostics = checked.diagnostics.filter((d) => overlaps(d, range));
  const ask = async (on: Range, only: readonly string[] | undefined, context: Diagnostic[]) => {
    const params: CodeActionParams = {
      textDocument: { uri: file.doc.uri },
      range: on,
      // Invoked (1): asked for by the user, so servers offer refactors for the whole selection.
      context: { diagnostics: context, triggerKind: 1, ...(only ? { only: [...only] } : {}) },
    };
    return (
      (await session.request<Array<CodeAction | Command> | null>("textDocument/codeAction", params, {
        signal: q.signal,
      })) ?? []
    );
  };
  // Source actions are about the whole file, not the lines' diagnostics, and get none: given the
  // line's errors, tsls 5.3.0's organize imports only sorted (it skips removing unused imports
  // when the context holds an error, and with noUnusedLocals an unused import is one).
  const kinds = q.kinds ?? [];
  const source = kinds.filter((k) => kindMatches(k, sourceKind));
  const other = kinds.filter((k) => !kindMatches(k, sourceKind));
  const answers =
    kinds.length === 0
      ? [await ask(range, undefined, diagnostics), await ask(range, [sourceKind], [])]
      : [
          ...(other.length > 0 ? [await ask(range, other, diagnostics)] : []),
          ...(source.length > 0 ? [await ask(range, source, [])] : []),
        ];
  // Fixes a server computes from where the cursor is rather than from the diagnostics given
  // (rust-analyzer's "Import …" for an unresolved type) come only for the diagnostic's own range.
  if (kinds.length === 0 || kinds.some((k) => kindMatches(quickfix, k))) {
    for (const d of diagnostics.slice(0, perDiagnosticAsks)) {
      if (sameRange(d.range, range)) continue;
      const fixes = await ask(d.range, [quickfix], [d]);
      // Found for this diagnostic alone: what it fixes, when the server did not say.
      answers.push(
        fixes.map((a) => (isCommand(a) || a.diagnostics?.length ? a : { ...a, diagnostics: [d] })),
      );
    }
  }
  const seen = new Set<string>();
  const actions: OfferedAction[] = [];
  for (const raw of answers.flat()) {
    const kind = isCommand(raw) ? undefined : raw.kind;
    const key = `${kind ?? ""}\u0000${raw.title}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!isCommand(raw) && raw.disabled) continue;
    actions.push({
      title: raw.title,
      ...(kind ? { kind } : {}),
      diagnostics: isCommand(raw) ? [] : (raw.diagnostics ?? []),
      preferred: !isCommand(raw) && raw.isPreferred === true,
      raw,
    });
  }
  const gap =
    session.answerGap() ??
    (checked.complete
      ? undefined
      : `the line's diagnostics were not settled (${checked.incompleteReason ?? "the server did not finish"}), so quick fixes for them may be missing`);
  return { file, range, actions, ...(gap ? { gap } : {}) };
}

/** A bare Command has a string `command`; a CodeAction's `command` is an object. */
export function isCommand(a: CodeAction | Command): a is Command {
  return typeof (a as Command).command === "string";
}

/** An action's kind matches a requested one when equal or below it (`source` matches `source.organizeImports.ts`). */
export function kindMatches(kind: string | undefined, wanted: string): boolean {
  return kind !== undefined && (kind === wanted || kind.startsWith(`${wanted}.`));
}
