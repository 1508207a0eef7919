/** The files under a path that some language server handles, for directory-wide symbol queries. */

import type { AdapterLookup } from "../languages/test-files.js";
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import { readTextFile } from "../text/positions.js";
import { type IgnoreRules, walkFiles } from "./ignore.js";

/** What a walk for code files needs of the project. */
export interface CodeFilesHost {
  readonly root: string;
  readonly sandbox: Sandbox;
  readonly ignore: IgnoreRules;
  readonly pool: AdapterLookup;
}

export async function codeFilesUnder(
  project: CodeFilesHost,
  relativePath: string,
  signal?: AbortSignal,
): Promise<CheckedPath[]> {
  const start = project.sandbox.resolve(relativePath || ".", { mustExist: true });
  const out: CheckedPath[] = [];
  const walkOpts = signal ? { skipIgnored: true, signal } : { skipIgnored: true };
  // Secret files get no checked path, so they are skipped here by construction.
  const mint = project.sandbox.walker(start);
  for await (const entry of walkFiles(project.root, start.rel, project.ignore, walkOpts)) {
    if (entry.isDir || project.pool.adapterForPath(entry.rel) === null) continue;
    const checked = mint(entry.rel);
    if (checked) out.push(checked);
  }
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

/** Keeps the files whose text contains `needle`: a symbol's name always appears in its file. */
export async function filesContaining(files: readonly CheckedPath[], needle: string): Promise<CheckedPath[]> {
  const keep = await Promise.all(
    files.map(async (f) => {
      try {
        return (await readTextFile(f.abs, f.rel)).text.includes(needle);
      } catch {
        return false;
      }
    }),
  );
  return files.filter((_, i) => keep[i]);
}
