/**
 * After a rename: where the old name is still written as a whole word. A language server renames
 * what it resolved; it cannot see text it does not analyse (rust-analyzer: `macro_rules!` bodies,
 * cfg-disabled code; any server: comments, strings, docs). Measured on serde_json: renaming
 * `ErrorCode` left 37 `cargo check` errors, all in `macro_rules!` bodies the rename did not reach.
 * Scanned: the files the rename touched, plus the files the adapter names (`renameLeftovers`).
 */

import { codeFilesUnder, filesContaining } from "../files/code-files.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { readTextFile } from "../text/positions.js";

/** Sites listed at most (the answer says how many were found). */
export const missedSitesMax = 40;
const snippetMaxChars = 120;

export interface MissedSite {
  relative_path: string;
  line: number;
  snippet?: string;
}

/**
 * Module specifiers: the quoted path of `from '…'`, `import '…'`, `import('…')`, `require('…')`.
 * A path that names a file like the symbol (rxjs `'../util/executeSchedule'`) is not a site of
 * the symbol: measured on rxjs, all 8 "missed sites" of renaming `executeSchedule` were imports of
 * its module. Those lines are counted apart, once, not listed.
 */
const moduleSpecifier = /(?:\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)(["'`])[^"'`\n]*\1/g;

function wholeWord(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, "u");
}

/** Files the adapters of touched files ask to scan too (e.g. every Rust file with a macro_rules!). */
async function adapterFiles(project: Project, touched: readonly CheckedPath[], signal?: AbortSignal) {
  const patterns = new Set<RegExp>();
  for (const f of touched) {
    const extra = project.pool.adapterForPath(f.abs)?.renameLeftovers?.alsoScanFilesMatching;
    if (extra) patterns.add(extra);
  }
  if (patterns.size === 0) return [];
  const all = await codeFilesUnder(project, ".", signal);
  const out: CheckedPath[] = [];
  for (const f of all) {
    try {
      const { text } = await readTextFile(f.abs, f.rel);
      if ([...patterns].some((p) => p.test(text))) out.push(f);
    } catch {
      // unreadable (binary, too large): nothing to list
    }
  }
  return out;
}

export async function renameLeftovers(
  project: Project,
  touched: readonly CheckedPath[],
  oldName: string,
  signal?: AbortSignal,
): Promise<{ sites: MissedSite[]; total: number; modulePaths: number }> {
  const seen = new Set<string>();
  const scope = [...touched, ...(await adapterFiles(project, touched, signal))].filter(
    (f) => !seen.has(f.abs) && seen.add(f.abs),
  );
  const re = wholeWord(oldName);
  const sites: MissedSite[] = [];
  let total = 0;
  let modulePaths = 0;
  for (const f of await filesContaining(scope, oldName)) {
    let text: string;
    try {
      text = (await readTextFile(f.abs, f.rel)).text;
    } catch {
      continue;
    }
    const lines = text.split(/\r\n|\n|\r/);
    lines.forEach((line, i) => {
      if (!re.test(line)) return;
      if (!re.test(line.replace(moduleSpecifier, '""'))) {
        modulePaths++;
        return;
      }
      total++;
      if (sites.length >= missedSitesMax) return;
      const trimmed = line.trim();
      sites.push({
        relative_path: f.rel,
        line: i + 1,
        snippet: trimmed.length > snippetMaxChars ? `${trimmed.slice(0, snippetMaxChars - 1)}…` : trimmed,
      });
    });
  }
  sites.sort((a, b) => a.relative_path.localeCompare(b.relative_path) || a.line - b.line);
  return { sites, total, modulePaths };
}
