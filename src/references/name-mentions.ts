/**
 * A bounded text pre-scan: the files of one language, outside a given set, that mention a name as a
 * whole word. A server that answers from the projects it happens to have loaded (tsserver adds an
 * inferred project for every opened file outside a tsconfig) gives answers that depend on what was
 * opened before; opening every file that could hold a reference first makes the answer depend on
 * the disk only — a file that never names the symbol cannot reference it (aliases aside).
 */

import { walkFiles } from "../files/ignore.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { readProjectText } from "../text/read.js";

/** scalpel's own folder (project.yml, the index, the journal). */
const ownDir = ".scalpel";

/** Files read at once by a scan. */
const scanReaders = 8;

/** Files read at most per scan; past it the scan stops and says so. */
export const maxScannedFiles = 5_000;

export interface Mentions {
  /** In path order. */
  files: CheckedPath[];
  /** Set when the scan hit `maxScannedFiles` before the end of the tree. */
  stopped?: { scanned: number };
  /** The directories read, project-relative (`.` for the root): where a change alters the answer. */
  dirs: string[];
}

/** `from`: a directory (project-relative) to scan instead of the whole tree. */
export async function filesMentioning(
  project: Project,
  adapter: LanguageAdapter,
  name: string,
  skip: ReadonlySet<string>,
  signal?: AbortSignal,
  from = ".",
): Promise<Mentions> {
  const word = new RegExp(`(?<![\\w$])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`);
  const mint = project.sandbox.walker(project.sandbox.resolve("."));
  const candidates: CheckedPath[] = [];
  const dirs = [from];
  let stopped: { scanned: number } | undefined;
  for await (const entry of walkFiles(project.root, from, project.ignore, {
    skipIgnored: true,
    ...(signal ? { signal } : {}),
  })) {
    // scalpel's own state holds no source, and the watcher leaves it out on purpose: listed among
    // the dirs read, it made every scan look unwatched, so none was ever reused (measured: the
    // scan ran on every warm call, 5–400 ms from 200 to 5k files).
    if (entry.rel === ownDir || entry.rel.startsWith(`${ownDir}/`)) continue;
    if (entry.isDir) {
      dirs.push(entry.rel);
      continue;
    }
    if (skip.has(entry.rel)) continue;
    if (project.pool.adapterForPath(entry.rel)?.id !== adapter.id) continue;
    // Secret files get no checked path: never read, never opened.
    const path = mint(entry.rel);
    if (!path) continue;
    if (candidates.length >= maxScannedFiles) {
      stopped = { scanned: candidates.length };
      break;
    }
    candidates.push(path);
  }
  // Read several at once: one at a time, each guarded read's round trips to the thread pool were
  // awaited in turn (date-fns, 1,500 files: 420 ms a scan on a loaded 2-core machine).
  const mentions = new Array<boolean>(candidates.length).fill(false);
  let next = 0;
  const reader = async () => {
    for (let i = next++; i < candidates.length; i = next++) {
      if (signal?.aborted) return;
      const path = candidates[i] as CheckedPath;
      const text = await readProjectText(path.abs, path.rel).then(
        (f) => f.text,
        () => "",
      );
      mentions[i] = word.test(text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(scanReaders, candidates.length) }, reader));
  const files = candidates.filter((_, i) => mentions[i]);
  return stopped ? { files, stopped, dirs } : { files, dirs };
}

/** The walk's order (entries sorted by name, depth first): segment by segment, a folder before what is in it. */
export function walkOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/** Whether `rel` is `dir` or below it (project-relative, `.` the root). */
export function within(rel: string, dir: string): boolean {
  return dir === "." || rel === dir || rel.startsWith(`${dir}/`);
}

/**
 * A kept scan brought up to the disk where the watcher cannot vouch for it: each of `stale`'s
 * directories (with everything below it) is scanned again, the rest is the kept answer. What a
 * directory held is reported by the watcher only where it watches (a `build/` or `dist/` folder is
 * watched at its top only), so a scan of date-fns read `scripts/build/…` afresh on every call and,
 * kept all or nothing, was never reused: 180–400 ms of each warm references call (native backend,
 * 1,500 files). Undefined when a part scan stops at the bound (the caller scans the whole tree).
 */
export async function refreshMentions(
  kept: Mentions,
  stale: readonly string[],
  rescan: (dir: string) => Promise<Mentions>,
): Promise<Mentions | undefined> {
  const tops = stale.filter((d) => !stale.some((o) => o !== d && within(d, o)));
  const fresh = await Promise.all(tops.map(rescan));
  if (fresh.some((m) => m.stopped)) return undefined;
  const gone = (rel: string) => tops.some((t) => within(rel, t));
  const files = [...kept.files.filter((p) => !gone(p.rel)), ...fresh.flatMap((m) => m.files)];
  const dirs = [...kept.dirs.filter((d) => !gone(d)), ...fresh.flatMap((m) => m.dirs)];
  return { files: files.sort((a, b) => walkOrder(a.rel, b.rel)), dirs };
}
