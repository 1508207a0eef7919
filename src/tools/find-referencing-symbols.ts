import type { Location } from "vscode-languageserver-protocol";
import { z } from "zod";
import type { LanguageAdapter } from "../../language-servers/adapter.js";
import type { LspSession } from "../lsp/session.js";
import { pathToUri } from "../lsp/uri.js";
import { answeringProject, type ProjectAnswer } from "../project/answering-project.js";
import type { Project } from "../project/project.js";
import { askPerBatch, referenceScope, type ScopeQuery } from "../project/reference-scope.js";
import type { Located, Sandbox } from "../security/sandbox.js";
import { checkKinds, kindNames } from "../symbols/kinds.js";
import { symbolSchema, toSymbolResult } from "../symbols/result.js";
import { containingSymbol, type SymbolNode } from "../symbols/tree.js";
import { completeness, completenessOf, maxAnswerChars, offsetParam, plural, snippet } from "./common.js";
import { isImportSite } from "./import-sites.js";
import { FileViews, normalizeLocations, samePosition } from "./locations.js";
import { projectFields, projectOutput } from "./project-fields.js";
import { resolveSymbol } from "./symbol-access.js";
import { excludeTests, isTestFile } from "./test-files.js";
import { defineTool, readOnly } from "./tool.js";

const referenceSchema = z.object({
  relative_path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  containing_symbol: z
    .object({
      name_path: z.string(),
      kind: z.string(),
      start_line: z.number().int(),
      end_line: z.number().int(),
    })
    .nullable(),
  snippet: z
    .string()
    .optional()
    .describe(
      "the site's own line, trimmed (context_lines 0); with context_lines > 0 the numbered lines around it",
    ),
  import: z
    .literal(true)
    .optional()
    .describe("the site is in an import/export-from statement: counted per file, not quoted"),
  project: z
    .string()
    .nullable()
    .optional()
    .describe("the project this site was found in, when not the symbol's own (null: in no project)"),
  secret: z
    .literal(true)
    .optional()
    .describe("the site is in a secret file: only its place is shown (no snippet, no containing symbol)"),
});
export type Reference = z.infer<typeof referenceSchema>;

export interface ReferenceQuery {
  project: Project;
  session: LspSession;
  adapter: LanguageAdapter;
  uri: string;
  /** The defining file. */
  abs: string;
  node: SymbolNode;
  contextLines: number;
  signal?: AbortSignal;
}

export interface ReferenceAnswer {
  /** In path/line order. */
  references: Reference[];
  /** The defining file's project; absent when the adapter cannot tell. */
  project?: ProjectAnswer;
  /** Set when files that may reference the symbol were not checked. */
  incompleteReason?: string;
}

/**
 * Every reference to a symbol, declaration excluded. The answer depends on the disk only, not on
 * what earlier calls opened (see `referenceScope`), and each site outside the defining
 * file's project says which project it came from.
 */
export async function collectReferences(q: ReferenceQuery): Promise<ReferenceAnswer> {
  const sq: ScopeQuery = {
    project: q.project,
    session: q.session,
    adapter: q.adapter,
    file: { abs: q.abs, uri: q.uri },
    name: q.node.name,
    ...(q.signal ? { signal: q.signal } : {}),
  };
  const prepared = await referenceScope(sq);
  const scope = prepared.scope;
  const incompleteReason = prepared.unchecked;
  const ask = (file: { abs: string; uri: string }) =>
    answeringProject({
      sandbox: q.project.sandbox,
      adapter: q.adapter,
      server: q.session,
      file,
      log: q.project.log,
      ...(q.signal ? { signal: q.signal } : {}),
    });
  /** A site file's project when not the defining file's own (undefined: it is, or unknown). */
  const otherProject = (file: { abs: string; uri: string }) =>
    ask(file).then((a) => (a && scope && a.project !== scope.project ? a.project : undefined));
  const projects = new Map<string, Promise<string | null | undefined>>();
  const batches = await askPerBatch(sq, prepared.outside, async (batch) => {
    for (const path of batch) {
      const known = otherProject({ abs: path.abs, uri: pathToUri(path.abs) });
      projects.set(path.rel, known);
      await known;
    }
    return q.session.request<Location[] | null>(
      "textDocument/references",
      {
        textDocument: { uri: q.uri },
        position: q.node.selectionRange.start,
        context: { includeDeclaration: false },
      },
      q.signal ? { signal: q.signal } : {},
    );
  });
  // Batches overlap (the defining project's sites come back every time): one site, once.
  const seen = new Set<string>();
  const raw = batches
    .flatMap((b) => normalizeLocations(b))
    .filter((l) => {
      const key = `${l.uri}:${l.range.start.line}:${l.range.start.character}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const views = new FileViews(q.project, q.signal);
  const projectOf = (rel: string, abs: string, uri: string): Promise<string | null | undefined> => {
    if (scope === undefined || scope.files?.has(rel)) return Promise.resolve(undefined);
    let p = projects.get(rel);
    if (!p) {
      p = otherProject({ abs, uri });
      projects.set(rel, p);
    }
    return p;
  };
  const refs: Reference[] = [];
  for (const { loc, where } of oncePerPlace(raw, q.project.sandbox)) {
    if (loc.uri === q.uri && samePosition(loc.range.start, q.node.selectionRange.start)) continue;
    if (where.kind === "secret") {
      // Its place only: a snippet or containing symbol would show the secret file's content.
      refs.push({
        relative_path: where.rel,
        line: loc.range.start.line + 1,
        column: loc.range.start.character + 1,
        containing_symbol: null,
        secret: true,
      });
      continue;
    }
    const path = where.path;
    const view = await views.get(path);
    const container = view.roots ? containingSymbol(view.roots, loc.range.start) : null;
    const project = await projectOf(path.rel, path.abs, loc.uri);
    if (isImportSite(view.lines, loc.range.start.line)) {
      // It only names the symbol: the compact forms count it per file instead of quoting it.
      refs.push({
        relative_path: path.rel,
        line: loc.range.start.line + 1,
        column: loc.range.start.character + 1,
        containing_symbol: null,
        import: true,
        ...(project !== undefined ? { project } : {}),
      });
      continue;
    }
    refs.push({
      relative_path: path.rel,
      line: loc.range.start.line + 1,
      column: loc.range.start.character + 1,
      containing_symbol: container
        ? {
            name_path: container.namePath,
            kind: container.kind,
            start_line: container.range.start.line + 1,
            end_line: container.range.end.line + 1,
          }
        : null,
      snippet:
        q.contextLines > 0
          ? snippet(view.lines, loc.range.start.line, q.contextLines)
          : siteLine(view.lines[loc.range.start.line] ?? "", loc.range.start.character),
      ...(project !== undefined ? { project } : {}),
    });
  }
  const references = refs.sort(
    (a, b) => a.relative_path.localeCompare(b.relative_path) || a.line - b.line || a.column - b.column,
  );
  return {
    references,
    ...(scope ? { project: scope } : {}),
    ...(incompleteReason ? { incompleteReason } : {}),
  };
}

/**
 * The sites inside the project, each once by its place (file, line, column): a server may name one
 * file by two URIs — a symlinked alias of the root, or a differently percent-encoded path — which
 * the URI-level check in `collectReferences` cannot see.
 */
export function oncePerPlace(
  locations: readonly Location[],
  sandbox: Sandbox,
): Array<{ loc: Location; where: Exclude<Located, { kind: "outside" }> }> {
  const placed = new Set<string>();
  const out: Array<{ loc: Location; where: Exclude<Located, { kind: "outside" }> }> = [];
  for (const loc of locations) {
    const where = sandbox.fromUri(loc.uri);
    if (where.kind === "outside") continue;
    const rel = where.kind === "file" ? where.path.rel : where.rel;
    const place = `${rel}:${loc.range.start.line}:${loc.range.start.character}`;
    if (placed.has(place)) continue;
    placed.add(place);
    out.push({ loc, where });
  }
  return out;
}

/** The longest site line quoted whole; a longer one is cut, since `line` and `column` locate it. */
const maxSiteLine = 100;

/**
 * A site's own line as the compact forms quote it: trimmed, and when very long cut to a window
 * that still shows the site (`column0`: the site's 0-based column in the untrimmed line).
 */
export function siteLine(text: string, column0 = 0): string {
  const t = text.trim();
  if (t.length <= maxSiteLine) return t;
  const at = Math.max(0, column0 - (text.length - text.trimStart().length));
  // The head when it holds the site and 40 characters after it; else a window around the site.
  if (at + 40 <= maxSiteLine - 1) return `${t.slice(0, maxSiteLine - 1)}…`;
  const from = Math.max(0, Math.min(at - 20, t.length - (maxSiteLine - 2)));
  const end = from + maxSiteLine - 2;
  return `…${t.slice(from, end)}${end < t.length ? "…" : ""}`;
}

/** The site's own line out of a numbered snippet (`27: code`); a one-line snippet is already that. */
function ownLine(snip: string, line: number, column: number): string {
  if (!/^\s*\d+: /.test(snip)) return snip;
  const own = snip.split("\n").find((l) => l.trimStart().startsWith(`${line}: `));
  return siteLine(own === undefined ? "" : own.trimStart().slice(`${line}: `.length), column - 1);
}

/** `exclude_tests`: drops the sites in the language's test files. */
function withoutTests(project: Project, refs: Reference[], exclude: boolean): Reference[] {
  return exclude ? refs.filter((r) => !isTestFile(project, r.relative_path)) : refs;
}

export const findReferencingSymbolsTool = defineTool({
  name: "find_referencing_symbols",
  title: "Find references",
  description:
    "Lists every place that uses a symbol, type-precisely (the language server resolves receivers, so a same-named method of another class is not included), grouped by file, one line per site with its containing symbol and code; import sites are counted per file, not quoted. Use it before changing or deleting a symbol, instead of text search. The symbol is given by name_path in the file that defines it.",
  input: {
    name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
    relative_path: z.string().describe("The file that defines the symbol"),
    include_kinds: z
      .array(z.enum(kindNames as [string, ...string[]]))
      .default([])
      .describe("Keep references whose containing symbol has one of these kinds"),
    exclude_kinds: z.array(z.enum(kindNames as [string, ...string[]])).default([]),
    context_lines: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(0)
      .describe(
        "0: each site's own line, trimmed; more: that many numbered lines around it (more text per site)",
      ),
    offset: offsetParam("references"),
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
  },
  output: { symbol: symbolSchema, references: z.array(referenceSchema), ...projectFields, ...completeness },
  annotations: readOnly,
  // Context goes first (each snippet becomes its site's own line); then the wrapper lists whole
  // references up to the budget and names the next page, so every listed site keeps its code.
  // The hint never asks to lower context_lines: by then there is no context.
  narrowHint: "Or filter with include_kinds / exclude_kinds.",
  paging: { items: "references", noun: "reference" },
  shrink: [
    (r) => ({
      ...r,
      references: r.references.map((ref) =>
        ref.snippet === undefined ? ref : { ...ref, snippet: ownLine(ref.snippet, ref.line, ref.column) },
      ),
    }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    const include = checkKinds(args.include_kinds, "include_kinds");
    const exclude = checkKinds(args.exclude_kinds, "exclude_kinds");
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal);
    const answer = await collectReferences({
      project,
      session: file.session,
      adapter: file.adapter,
      uri: file.doc.uri,
      abs: file.path.abs,
      node,
      contextLines: args.context_lines,
      signal: ctx.signal,
    });
    const references = withoutTests(project, answer.references, args.exclude_tests).filter((r) => {
      const kind = r.containing_symbol?.kind;
      if (include.size > 0 && (kind === undefined || !include.has(kind))) return false;
      return kind === undefined || !exclude.has(kind);
    });
    return {
      symbol: toSymbolResult(node, file.path.rel, { depth: 0 }),
      references: references.slice(args.offset),
      total: references.length,
      ...projectOutput(answer.project),
      ...(answer.incompleteReason
        ? { complete: false, incomplete_reason: answer.incompleteReason }
        : completenessOf(file.session)),
    };
  },
  render(r) {
    const from = r.project === undefined ? "" : ` [project: ${r.project ?? "none"}]`;
    const head = `${plural(r.total ?? r.references.length, "reference")} to ${r.symbol.name_path} (${r.symbol.relative_path}:${r.symbol.start_line})${from}${r.complete ? "" : ` — incomplete: ${r.incomplete_reason}`}${r.project_note ? `\n(${r.project_note})` : ""}`;
    return [head, ...renderGrouped(r.references)].join("\n");
  },
});

/**
 * The compact text: one header per file (with its count of import sites), then one line per site,
 * `  LINE  Container/name  code`; the container is left out while it repeats the line above's.
 */
export function renderGrouped(references: readonly Reference[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < references.length) {
    const file = references[i]!.relative_path;
    let j = i;
    while (j < references.length && references[j]!.relative_path === file) j++;
    const sites = references.slice(i, j);
    const imports = sites.filter((s) => s.import).length;
    const other = sites[0]!.project === undefined ? "" : ` [project: ${sites[0]!.project ?? "none"}]`;
    out.push(`${file}${other}${imports > 0 ? `  (imports: ${imports})` : ""}`);
    let container: string | undefined;
    for (const s of sites) {
      if (s.import) continue;
      if (s.secret) {
        out.push(`  ${s.line}  (secret file: content not shown)`);
        continue;
      }
      const name = s.containing_symbol?.name_path ?? "(top level)";
      const shown = name === container ? "" : `  ${name}`;
      container = name;
      if (s.snippet === undefined) out.push(`  ${s.line}${shown}`);
      else if (!s.snippet.includes("\n") && !/^\s*\d+: /.test(s.snippet))
        out.push(`  ${s.line}${shown}  ${s.snippet}`);
      else out.push(`  ${s.line}${shown}`, ...s.snippet.split("\n").map((l) => `    ${l}`));
    }
    i = j;
  }
  return out;
}
