/**
 * The answer's form of a symbol's reference sites, as find_referencing_symbols gives it (and any
 * answer that lists references): one entry per file with its import sites' lines, then a group per
 * run of sites in one containing symbol; paged by sites, rendered as compact text.
 */
import { z } from "zod";
import { type Reference, siteLine } from "./sites.js";

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

export const referenceFileSchema = z.object({
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

/** The site's own line out of a numbered snippet (`27: code`); a one-line snippet is already that. */
export function ownLine(snip: string, line: number, column: number): string {
  if (!/^\s*\d+: /.test(snip)) return snip;
  const own = snip.split("\n").find((l) => l.trimStart().startsWith(`${line}: `));
  return siteLine(own === undefined ? "" : own.trimStart().slice(`${line}: `.length), column - 1);
}

/**
 * The sites from the page's start that can matter to an answer of at most `max` characters: each
 * listed site costs at least its own JSON (`{"line":…,"code":…}` with the code as the shrink step
 * leaves it; an import site its line number), so once those alone pass `max` the wrapper's page
 * ends earlier, whatever follows. The rest are left out before the wrapper fits the page (`total`
 * still counts them): measuring and cutting every site of a large answer again and again was the
 * second cost of a warm call after the server's own (40–60 ms for 1,000 sites). The page, `shown`
 * and `next` are the same as with every site listed.
 */
export function listable(refs: readonly Reference[], max: number): readonly Reference[] {
  let least = 0;
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i]!;
    if (r.import) least += String(r.line).length;
    else {
      const code = r.snippet === undefined ? undefined : ownLine(r.snippet, r.line, r.column);
      least += JSON.stringify(code === undefined ? { line: r.line } : { line: r.line, code }).length;
    }
    if (least > max) return refs.slice(0, i + 1);
  }
  return refs;
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
