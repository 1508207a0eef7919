/** The files under a path that some language server handles, for directory-wide symbol queries. */
import { readTextFile } from "../edits/text.js";
import type { CheckedPath } from "../security/sandbox.js";
import { walkFiles } from "./ignore.js";
import type { Project } from "./project.js";

export async function codeFilesUnder(
  project: Project,
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
