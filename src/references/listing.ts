/**
 * The answer's form of a symbol's reference sites, as find_referencing_symbols gives it: one entry
 * per file, a few lines of text that are the same in the JSON and in the text form. Objects with a
 * key per site (`{"line":…,"code":…}` under a group per container) cost half again the characters
 * of the sites themselves, more than the grep they replace (issue 19); the file's path is said once,
 * each site is one line.
 *
 *   src/cart.ts  imports: 1, 3            the path (` [project: p]`, ` (secret file)` where so),
 *   27  Cart/total  return this.sum();     then each line of sites: its line (`:columns` where it
 *   52:5,30  main  total(total());         holds more than one), its containing symbol (`(top
 *   60  main                               level)` for none) and its own text, trimmed; with context
 *       59: const t =                      lines the numbered lines around it follow, indented 4; a
 *       60:   total();                     secret file's sites are their line numbers only.
 *
 * Sites of one line in one container share that line (rxjs `partition`: two 80-character windows
 * of the same line for `innerFrom(source)` twice); paging still counts sites.
 */
import { z } from "zod";
import { TextKeyedMemo } from "../core/text-keyed-memo.js";
import { type Reference, siteLine } from "./sites.js";

export const referenceFileSchema = z
  .string()
  .describe(
    "a file: its path (imports: the lines of its import sites), then a line per line of sites: LINE[:COLUMNS]  CONTAINER  CODE",
  );
export type ReferenceFile = z.infer<typeof referenceFileSchema>;

/** The container of a site in no symbol. */
const topLevel = "(top level)";
const continuation = "    ";
const headerPattern = /^(.*?)(?: \[project: (.*?)\])?( \(secret file\))?(?: {2}imports: ([\d, ]+))?$/;
const sitePattern = /^(\d+)(?::(\d+(?:,\d+)*))?(?: {2}(.+?)(?: {2}(.*))?)?$/;

/** The site's own line out of a numbered snippet (`27: code`); a one-line snippet is already that. */
export function ownLine(snip: string, line: number, column: number): string {
  if (!/^\s*\d+: /.test(snip)) return snip;
  const own = snip.split("\n").find((l) => l.trimStart().startsWith(`${line}: `));
  return siteLine(own === undefined ? "" : own.trimStart().slice(`${line}: `.length), column - 1);
}

/**
 * The sites from the page's start that can matter to an answer of at most `max` characters: each
 * listed site costs at least its own line (its number, container and the code as the context step
 * leaves it; an import site its line number) and each file its path, so once those alone pass `max`
 * the wrapper's page ends earlier, whatever follows. The rest are left out before the wrapper fits the page (`total` still counts them):
 * measuring and cutting every site of a large answer again and again was the second cost of a
 * warm call after the server's own (40–60 ms for 1,000 sites). The page, `shown` and `next` are
 * the same as with every site listed.
 */
export function listable(refs: readonly Reference[], max: number): readonly Reference[] {
  let least = 0;
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i]!;
    const prev = refs[i - 1];
    if (prev?.relative_path !== r.relative_path) least += r.relative_path.length;
    if (r.import) least += String(r.line).length;
    // A site on the line of the one before may share its line: it costs its column at least.
    else if (prev && !prev.import && prev.relative_path === r.relative_path && prev.line === r.line)
      least += String(r.column).length;
    else {
      // `LINE  CONTAINER  CODE` and its line break (siteText); a secret file's site, its line only.
      least += String(r.line).length + 1;
      if (!r.secret) least += 2 + (r.containing_symbol?.name_path ?? topLevel).length;
      if (!r.secret && r.snippet !== undefined) least += 2 + ownLine(r.snippet, r.line, r.column).length;
    }
    if (least > max) return refs.slice(0, i + 1);
  }
  return refs;
}

/** One line of sites (its first site's code, and its context lines); `columns` where the line holds several. */
function siteText(r: Reference, columns: number[] | undefined, code: string | undefined): string {
  // Context lines keep the column too: the step that drops them windows a long own line around it.
  const context = code?.includes("\n") === true;
  const cols = columns ?? (context ? [r.column] : undefined);
  const at = `${r.line}${cols ? `:${cols.join(",")}` : ""}`;
  if (r.secret) return at;
  const head = `${at}  ${r.containing_symbol?.name_path ?? topLevel}`;
  if (code === undefined) return head;
  if (!context) return `${head}  ${code}`;
  return [head, ...code.split("\n").map((l) => `${continuation}${l}`)].join("\n");
}

/** The answer's form of the sites (in `collectReferences` order), one entry per file. */
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
    const project = first.project === undefined ? "" : ` [project: ${first.project ?? "none"}]`;
    const lines = [
      `${first.relative_path}${project}${first.secret ? " (secret file)" : ""}${imports.length > 0 ? `  imports: ${imports.join(", ")}` : ""}`,
    ];
    const others = here.filter((r) => !r.import);
    for (let k = 0; k < others.length; ) {
      const r = others[k]!;
      const container = r.containing_symbol?.name_path;
      let end = k + 1;
      while (
        end < others.length &&
        others[end]!.line === r.line &&
        others[end]!.containing_symbol?.name_path === container
      )
        end++;
      const several = (perLine.get(r.line) ?? 0) > 1;
      lines.push(siteText(r, several ? others.slice(k, end).map((x) => x.column) : undefined, r.snippet));
      k = end;
    }
    files.push(lines.join("\n"));
    i = j;
  }
  return files;
}

/** A file entry read back: its header's parts and its sites' lines (each with its context lines). */
interface Parsed {
  head: string;
  imports: number[];
  sites: string[];
}

function parse(file: ReferenceFile): Parsed {
  const [first = "", ...rest] = file.split("\n");
  const m = headerPattern.exec(first);
  const imports = m?.[4] ? m[4].split(", ").map(Number) : [];
  const head = m?.[4] ? first.slice(0, first.lastIndexOf("  imports: ")) : first;
  const sites: string[] = [];
  for (const line of rest) {
    if (line.startsWith(continuation) && sites.length > 0) sites[sites.length - 1] += `\n${line}`;
    else sites.push(line);
  }
  return { head, imports, sites };
}

function unparse(p: Parsed): ReferenceFile {
  const imports = p.imports.length > 0 ? `  imports: ${p.imports.join(", ")}` : "";
  return [`${p.head}${imports}`, ...p.sites].join("\n");
}

/** One site of an entry, its parts spelled out (for a reader of the answer: tests, the bench). */
export interface ListedSite {
  relative_path: string;
  line: number;
  column?: number;
  container: string | null;
  code?: string;
  import?: true;
  project?: string | null;
  secret?: true;
}

/** The sites an entry lists, in its order: its import sites, then the others. */
export function sitesOfFile(file: ReferenceFile): ListedSite[] {
  const { head, imports, sites } = parse(file);
  const m = headerPattern.exec(head);
  const common = {
    relative_path: m?.[1] ?? head,
    ...(m?.[2] !== undefined ? { project: m[2] === "none" ? null : m[2] } : {}),
    ...(m?.[3] ? { secret: true as const } : {}),
  };
  return [
    ...imports.map((line) => ({ ...common, line, container: null, import: true as const })),
    ...sites.flatMap((text) => {
      const [first = "", ...more] = text.split("\n");
      const s = sitePattern.exec(first);
      const container = s?.[3];
      const code = more.length > 0 ? more.map((l) => l.slice(continuation.length)).join("\n") : s?.[4];
      const site = {
        ...common,
        line: Number(s?.[1]),
        container: container === undefined || container === topLevel ? null : container,
        ...(code !== undefined ? { code } : {}),
      };
      if (s?.[2] === undefined) return [site];
      return s[2].split(",").map((c) => ({ ...site, column: Number(c) }));
    }),
  ];
}

/** The entry with each site's context lines replaced by its own line (the step when context does not fit). */
export function withOwnLines(file: ReferenceFile): ReferenceFile {
  const p = parse(file);
  const sites = p.sites.map((text) => {
    const [first = "", ...more] = text.split("\n");
    if (more.length === 0) return text;
    const s = sitePattern.exec(first);
    const code = more.map((l) => l.slice(continuation.length)).join("\n");
    return `${first}  ${ownLine(code, Number(s?.[1]), Number.parseInt(s?.[2] ?? "1", 10))}`;
  });
  return unparse({ ...p, sites });
}

/** How many sites a line of sites stands for: its columns (one without). */
function siteCount(text: string): number {
  const cols = sitePattern.exec(text.split("\n")[0] ?? "")?.[2];
  return cols === undefined ? 1 : cols.split(",").length;
}

/** The line of sites with its first `n` columns only. */
function firstSites(text: string, n: number): string {
  return text.replace(
    /^(\d+):([\d,]+)/,
    (_, line: string, cols: string) => `${line}:${cols.split(",").slice(0, n).join(",")}`,
  );
}

const unitsOf = (p: Parsed) => p.imports.length + p.sites.reduce((n, s) => n + siteCount(s), 0);

/**
 * Units per entry text, remembered: fitting an answer to its budget counts the listed sites at
 * every step of its search for the longest page (the same entry strings each time), and parsing
 * them again was the largest own cost of a warm call with many sites — rxjs `Observable` (392
 * sites, native): about 5 ms of its 26 ms of scalpel CPU went to the counting (siteCount, parse), measured
 * with a CPU profile. Bounded by the entries' bytes (2 MiB, where the bound was 4,000
 * entries), not by their count: one entry lists every site of its file, so a few thousand entries
 * could hold any amount. A text is its own key, so nothing can go stale.
 */
const knownUnits = new TextKeyedMemo<number>(2 * 1024 * 1024);

function unitsOfText(file: ReferenceFile): number {
  let n = knownUnits.get(file);
  if (n === undefined) {
    n = unitsOf(parse(file));
    knownUnits.set(file, n);
  }
  return n;
}

/** Paging counts sites, not files: a page may end inside a file (its imports first, then its sites), or inside a line. */
export const referenceUnits = {
  count: (files: unknown[]) => (files as ReferenceFile[]).reduce((n, f) => n + unitsOfText(f), 0),
  take(files: unknown[], n: number): unknown[] {
    const out: ReferenceFile[] = [];
    let left = n;
    for (const f of files as ReferenceFile[]) {
      if (left <= 0) break;
      const here = unitsOfText(f);
      if (here <= left) {
        out.push(f);
        left -= here;
        continue;
      }
      const p = parse(f);
      const imports = p.imports.slice(0, left);
      left -= imports.length;
      const sites: string[] = [];
      for (const s of p.sites) {
        if (left <= 0) break;
        const k = siteCount(s);
        sites.push(k <= left ? s : firstSites(s, left));
        left -= Math.min(k, left);
      }
      out.push(unparse({ head: p.head, imports, sites }));
      left = 0;
    }
    return out;
  },
};

/** The text form: each entry as the JSON has it, its sites indented under its path. */
export function renderGrouped(files: readonly ReferenceFile[]): string[] {
  return files.flatMap((f) => {
    const [head = "", ...rest] = f.split("\n");
    return [head, ...rest.map((l) => `  ${l}`)];
  });
}
