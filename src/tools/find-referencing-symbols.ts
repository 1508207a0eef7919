import type { Location } from "vscode-languageserver-protocol";
import { z } from "zod";
import type { LanguageAdapter } from "../../language-servers/adapter.js";
import type { LspSession } from "../lsp/session.js";
import { pathToUri } from "../lsp/uri.js";
import { answeringProject, type ProjectAnswer } from "../project/answering-project.js";
import type { Project } from "../project/project.js";
import { askPerBatch, referenceScope, type ScopeQuery } from "../project/reference-scope.js";
import { siteTextCache } from "../project/site-text-cache.js";
import type { Located, Sandbox } from "../security/sandbox.js";
import { checkKinds, kindNames } from "../symbols/kinds.js";
import { symbolSchema, toSymbolResult } from "../symbols/result.js";
import { containingSymbol, type SymbolNode, symbolAt } from "../symbols/tree.js";
import { completeness, completenessOf, maxAnswerChars, offsetParam, plural, snippet } from "./common.js";
import { isImportSite } from "./import-sites.js";
import { FileViews, normalizeLocations, samePosition } from "./locations.js";
import { projectFields, projectOutput } from "./project-fields.js";
import { resolveSymbol } from "./symbol-access.js";
import { excludeTests, isTestFile } from "./test-files.js";
import { defineTool, readOnly } from "./tool.js";

/**
 * One site as collectReferences finds it (the internal, flat form: safe_delete_symbol and the kind
 * filters read it). The answer groups these by file and container (`groupReferences`), so no site
 * repeats its file, its container or the container's span.
 */
export interface Reference {
  relative_path: string;
  line: number;
  column: number;
  /** Its kind is what include_kinds / exclude_kinds filter on. */
  containing_symbol: { name_path: string; kind: string } | null;
  /** The site's own line, trimmed (context_lines 0); with context_lines > 0 the numbered lines around it. */
  snippet?: string;
  /** The site is in an import/export-from statement: counted per file, not quoted. */
  import?: true;
  /** The project this site was found in, when not the symbol's own (null: in no project). */
  project?: string | null;
  /** The site is in a secret file: only its place is known. */
  secret?: true;
}

const siteSchema = z.object({
  line: z.number().int().describe("1-based"),
  column: z
    .number()
    .int()
    .optional()
    .describe("1-based; only on a line that holds more than one site, to tell them apart"),
  code: z
    .string()
    .optional()
    .describe(
      "the site's own line, trimmed (context_lines 0); with context_lines > 0 the numbered lines around it; absent in a secret file",
    ),
});

const referenceFileSchema = z.object({
  relative_path: z.string(),
  project: z
    .string()
    .nullable()
    .optional()
    .describe("the project this file's sites were found in, when not the symbol's own (null: in no project)"),
  secret: z
    .literal(true)
    .optional()
    .describe("a secret file: only the sites' lines are shown (no code, no containing symbol)"),
  imports: z
    .array(z.number().int())
    .optional()
    .describe("lines of the file's sites in import / export-from statements: counted, not quoted"),
  groups: z
    .array(
      z.object({
        container: z
          .string()
          .nullable()
          .describe("name path of the innermost symbol holding these sites; null: top-level code"),
        sites: z.array(siteSchema),
      }),
    )
    .optional()
    .describe("the other sites in line order, a group per run of sites in the same containing symbol"),
});
export type ReferenceFile = z.infer<typeof referenceFileSchema>;
type Site = z.infer<typeof siteSchema>;

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
  /** In path order; in each file the import sites first, then the others by line and column. */
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
        context: { includeDeclaration: q.adapter.referencesWithDeclaration === true },
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
  const views = new FileViews(q.project, q.signal, siteTextCache(q.session));
  const projectOf = (rel: string, abs: string, uri: string): Promise<string | null | undefined> => {
    if (scope === undefined || scope.files?.has(rel)) return Promise.resolve(undefined);
    let p = projects.get(rel);
    if (!p) {
      p = otherProject({ abs, uri });
      projects.set(rel, p);
    }
    return p;
  };
  const placed = oncePerPlace(raw, q.project.sandbox);
  await views.readAhead(placed.flatMap(({ where }) => (where.kind === "file" ? [where.path] : [])));
  const refs: Reference[] = [];
  for (const { loc, where } of placed) {
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
    // Asked with the declaration (see `referencesWithDeclaration`), the server also lists the
    // symbol's other declarations (overload signatures): sites where a symbol of its name and kind
    // is declared, which an answer without the declaration leaves out.
    if (q.adapter.referencesWithDeclaration && view.roots && declares(view.roots, loc.range.start, q.node))
      continue;
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
      containing_symbol: container ? { name_path: container.namePath, kind: container.kind } : null,
      snippet:
        q.contextLines > 0
          ? snippet(view.lines, loc.range.start.line, q.contextLines)
          : siteLine(view.lines[loc.range.start.line] ?? "", loc.range.start.character),
      ...(project !== undefined ? { project } : {}),
    });
  }
  // Import sites first in each file: the answer lists them as one `imports` list per file, and a
  // page (offset) is a prefix of this order.
  const references = refs.sort(
    (a, b) =>
      a.relative_path.localeCompare(b.relative_path) ||
      Number(b.import === true) - Number(a.import === true) ||
      a.line - b.line ||
      a.column - b.column,
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

function declares(roots: readonly SymbolNode[], pos: Location["range"]["start"], like: SymbolNode): boolean {
  const s = symbolAt(roots, pos);
  return (
    s !== null && s.name === like.name && s.kind === like.kind && samePosition(s.selectionRange.start, pos)
  );
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

/**
 * The answer's form of the sites (in `collectReferences` order): one entry per file with its import
 * sites' lines, then a group per run of sites in one containing symbol, each site its line and code.
 * Nothing is repeated from a parent: the file, the container and its kind and span are said once.
 */
export function groupReferences(refs: readonly Reference[]): ReferenceFile[] {
  const files: ReferenceFile[] = [];
  let i = 0;
  while (i < refs.length) {
    const first = refs[i]!;
    let j = i;
    while (j < refs.length && refs[j]!.relative_path === first.relative_path) j++;
    const here = refs.slice(i, j);
    const perLine = new Map<number, number>();
    for (const r of here) if (!r.import) perLine.set(r.line, (perLine.get(r.line) ?? 0) + 1);
    const imports = here.filter((r) => r.import).map((r) => r.line);
    const groups: NonNullable<ReferenceFile["groups"]> = [];
    for (const r of here) {
      if (r.import) continue;
      const container = r.containing_symbol?.name_path ?? null;
      const site: Site = {
        line: r.line,
        ...((perLine.get(r.line) ?? 0) > 1 ? { column: r.column } : {}),
        ...(r.snippet !== undefined ? { code: r.snippet } : {}),
      };
      const last = groups.at(-1);
      if (last && last.container === container) last.sites.push(site);
      else groups.push({ container, sites: [site] });
    }
    files.push({
      relative_path: first.relative_path,
      ...(first.project !== undefined ? { project: first.project } : {}),
      ...(first.secret ? { secret: true as const } : {}),
      ...(imports.length > 0 ? { imports } : {}),
      ...(groups.length > 0 ? { groups } : {}),
    });
    i = j;
  }
  return files;
}

const sitesIn = (f: ReferenceFile) =>
  (f.imports?.length ?? 0) + (f.groups ?? []).reduce((n, g) => n + g.sites.length, 0);

/** Paging counts sites, not files: a page may end inside a file (its imports first, then its groups). */
export const referenceUnits = {
  count: (files: unknown[]) => (files as ReferenceFile[]).reduce((n, f) => n + sitesIn(f), 0),
  take(files: unknown[], n: number): unknown[] {
    const out: ReferenceFile[] = [];
    let left = n;
    for (const f of files as ReferenceFile[]) {
      if (left <= 0) break;
      const here = sitesIn(f);
      if (here <= left) {
        out.push(f);
        left -= here;
        continue;
      }
      const imports = (f.imports ?? []).slice(0, left);
      left -= imports.length;
      const groups: NonNullable<ReferenceFile["groups"]> = [];
      for (const g of f.groups ?? []) {
        if (left <= 0) break;
        const sites = g.sites.slice(0, left);
        left -= sites.length;
        groups.push({ ...g, sites });
      }
      const { imports: _i, groups: _g, ...rest } = f;
      out.push({
        ...rest,
        ...(imports.length > 0 ? { imports } : {}),
        ...(groups.length > 0 ? { groups } : {}),
      });
      left = 0;
    }
    return out;
  },
};

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
  output: {
    symbol: symbolSchema,
    files: z
      .array(referenceFileSchema)
      .describe(
        "the sites from offset on, by file; the envelope's total counts every site (imports included)",
      ),
    ...projectFields,
    ...completeness,
  },
  annotations: readOnly,
  // Context goes first (each snippet becomes its site's own line); then the wrapper lists whole
  // references up to the budget and names the next page, so every listed site keeps its code.
  // The hint never asks to lower context_lines: by then there is no context.
  narrowHint: "Or filter with include_kinds / exclude_kinds.",
  paging: { items: "files", noun: "reference", units: referenceUnits },
  shrink: [
    (r) => ({
      ...r,
      files: r.files.map((f) =>
        f.groups === undefined
          ? f
          : {
              ...f,
              groups: f.groups.map((g) => ({
                ...g,
                sites: g.sites.map((s) =>
                  s.code === undefined ? s : { ...s, code: ownLine(s.code, s.line, s.column ?? 1) },
                ),
              })),
            },
      ),
    }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    const include = checkKinds(args.include_kinds, "include_kinds");
    const exclude = checkKinds(args.exclude_kinds, "exclude_kinds");
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal, true);
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
      files: groupReferences(references.slice(args.offset)),
      total: references.length,
      ...projectOutput(answer.project),
      ...(answer.incompleteReason
        ? { complete: false, incomplete_reason: answer.incompleteReason }
        : completenessOf(file.session)),
    };
  },
  render(r) {
    const from = r.project === undefined ? "" : ` [project: ${r.project ?? "none"}]`;
    const head = `${plural(r.total ?? referenceUnits.count(r.files), "reference")} to ${r.symbol.name_path} (${r.symbol.relative_path}:${r.symbol.start_line})${from}${r.complete ? "" : ` — incomplete: ${r.incomplete_reason}`}${r.project_note ? `\n(${r.project_note})` : ""}`;
    return [head, ...renderGrouped(r.files)].join("\n");
  },
});

/**
 * The compact text: one header per file (with its count of import sites), then one line per site,
 * `  LINE  Container/name  code`; the container is named on the first site of each group.
 */
export function renderGrouped(files: readonly ReferenceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const other = f.project === undefined ? "" : ` [project: ${f.project ?? "none"}]`;
    const imports = f.imports?.length ?? 0;
    out.push(`${f.relative_path}${other}${imports > 0 ? `  (imports: ${imports})` : ""}`);
    for (const g of f.groups ?? []) {
      g.sites.forEach((s, k) => {
        if (f.secret) {
          out.push(`  ${s.line}  (secret file: content not shown)`);
          return;
        }
        const shown = k === 0 ? `  ${g.container ?? "(top level)"}` : "";
        if (s.code === undefined) out.push(`  ${s.line}${shown}`);
        else if (!s.code.includes("\n") && !/^\s*\d+: /.test(s.code))
          out.push(`  ${s.line}${shown}  ${s.code}`);
        else out.push(`  ${s.line}${shown}`, ...s.code.split("\n").map((l) => `    ${l}`));
      });
    }
  }
  return out;
}
