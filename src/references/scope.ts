/**
 * Makes a references (or rename) answer depend on the disk only, not on what earlier calls opened.
 * tsserver searches every project it has loaded, and opening a file outside every tsconfig (a
 * test, a script) adds an inferred project holding it — ky `HTTPError`: 7, 31, then 69 references
 * as calls opened more files. So the files outside the defining file's project that mention the
 * name are opened before asking — in batches, up to a bound that the answer reports. A file that
 * never names the symbol cannot reference it, so files opened earlier add nothing more.
 */
import type { LanguageAdapter, ProjectServer } from "../languages/adapter.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { answeringProject, type ProjectAnswer } from "../servers/answering-project.js";
import { filesMentioning, type Mentions, refreshMentions } from "./name-mentions.js";
import { type ReferenceScopeCache, referenceScopeCache, type WatchedSession } from "./scope-cache.js";

/**
 * Files outside the defining project open at once. Documents keeps the 40 most recently used open,
 * and the defining file must stay open: tsserver drops a configured project once none of its files
 * is open.
 */
export const outsideBatchSize = 20;
/** Files outside the defining project checked per query, at most; the rest are named. */
export const maxOutsideFiles = 200;

export interface ScopeQuery {
  project: Project;
  /** Synced with the disk in this call already (the defining file was), so its change reports are in. */
  session: ProjectServer & WatchedSession & { sync(abs: string): Promise<unknown> };
  adapter: LanguageAdapter;
  /** The defining file, open in the session. */
  file: { abs: string; uri: string };
  /** The symbol's name, as written in the files that use it. */
  name: string;
  signal?: AbortSignal;
}

export interface ReferenceScope {
  /** The defining file's project with its file list; undefined when the adapter cannot tell. */
  scope?: ProjectAnswer;
  /** Files outside that project that mention the name, in path order, to open before asking. */
  outside: CheckedPath[];
  /** Set when files that mention the name will not be checked: why the answer may miss sites. */
  unchecked?: string;
}

/** Which project answers for the defining file, and which files outside it may reference the symbol. */
export async function referenceScope(q: ScopeQuery): Promise<ReferenceScope> {
  // Reused while the disk stays the same (reference-scope-cache.ts): a warm call asks nothing.
  const cache = referenceScopeCache(q.project.root, q.session);
  const scope = cache.project(q.file.abs) ?? (await askProject(q, cache));
  // Servers that cannot list a project's files (rust-analyzer) load the whole workspace anyway.
  if (!scope?.files) return scope ? { scope, outside: [] } : { outside: [] };
  const mentions = cache.mentionsOf(scope.files, q.name) ?? (await scan(q, cache, scope.files));
  const outside = mentions.files.slice(0, maxOutsideFiles);
  const rest = mentions.files.slice(maxOutsideFiles).map((p) => p.rel);
  const where = scope.project ? `outside ${scope.project}` : "outside the file's project";
  if (rest.length > 0) {
    const listed = `${rest.slice(0, 5).join(", ")}${rest.length > 5 ? ", …" : ""}`;
    const unchecked = `${rest.length} more file${rest.length === 1 ? "" : "s"} ${where} mention ${q.name} and were not checked: ${listed}`;
    return { scope, outside, unchecked };
  }
  if (mentions.stopped) {
    const unchecked = `the scan for files ${where} that mention ${q.name} stopped after ${mentions.stopped.scanned} files`;
    return { scope, outside, unchecked };
  }
  return { scope, outside };
}

async function askProject(q: ScopeQuery, cache: ReferenceScopeCache): Promise<ProjectAnswer | undefined> {
  const mark = cache.mark;
  const scope = await answeringProject({
    sandbox: q.project.sandbox,
    adapter: q.adapter,
    server: q.session,
    file: q.file,
    listFiles: true,
    log: q.project.log,
    ...(q.signal ? { signal: q.signal } : {}),
  });
  if (scope) cache.keepProject(mark, q.file.abs, scope);
  return scope;
}

async function scan(q: ScopeQuery, cache: ReferenceScopeCache, skip: ReadonlySet<string>): Promise<Mentions> {
  const mark = cache.mark;
  const part = cache.partOf(skip, q.name);
  if (part) {
    const rescan = (dir: string) => filesMentioning(q.project, q.adapter, q.name, skip, q.signal, dir);
    const refreshed = await refreshMentions(part.kept, part.stale, rescan);
    if (refreshed && !q.signal?.aborted) return refreshed;
  }
  const mentions = await filesMentioning(q.project, q.adapter, q.name, skip, q.signal);
  // A scan cut short by the caller's cancellation is not the disk's answer.
  if (!q.signal?.aborted) cache.keepMentions(mark, skip, q.name, mentions);
  return mentions;
}

/**
 * Asks once per batch of outside files (at least once), each batch opened and the defining file
 * re-opened first so it is never the one closed to make room. `ask` gets the batch: questions about
 * its files (their project) must be asked while they are open — tsserver forgets the inferred
 * project of a closed file.
 */
export async function askPerBatch<T>(
  q: ScopeQuery,
  outside: readonly CheckedPath[],
  ask: (batch: readonly CheckedPath[]) => Promise<T>,
): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i === 0 || i < outside.length; i += outsideBatchSize) {
    const batch = outside.slice(i, i + outsideBatchSize);
    for (const path of batch) await q.session.sync(path.abs);
    await q.session.sync(q.file.abs);
    answers.push(await ask(batch));
  }
  return answers;
}
