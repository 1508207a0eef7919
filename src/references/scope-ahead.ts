/**
 * The reference scope (scope.ts) started before the symbol is resolved: it needs the defining file
 * and the symbol's name only, not its position. On a cold call the position waits for the defining
 * file's documentSymbol (250–330 ms on zod's 5,000-line `types.ts` while the native server loads the
 * project, 0.7–3.9 s on tsserver), and the scope's project question, tsconfig read and name scan
 * came after it, one after another: asked with the defining file's opening, their answers and reads
 * overlap the server's load and the symbols' processing. A warm call finds the scope kept either way.
 */
import type { Project } from "../project/project.js";
import { parseNamePath } from "../symbols/name-path.js";
import { type ReferenceScope, referenceScope } from "./scope.js";
import { referenceScopeCache } from "./scope-cache.js";

export interface ScopeAhead {
  /** The defining file it was started for. */
  abs: string;
  /** The name the scope was asked for (the name path's last segment). */
  name: string;
  /**
   * The scope and the session it was asked of; undefined when it could not be started or failed:
   * the caller asks again and meets the error itself. `keep` keeps its project answer for later
   * calls when nothing was reported changed since it was asked: asked this early, the project
   * watcher (started by the server's first watch registration) may not have been running yet when
   * the answer came (native server: a warm call asked `custom/projectInfo` again).
   */
  scope: Promise<{ session: object; prepared: ReferenceScope; keep: () => void } | undefined>;
}

export function scopeAhead(
  project: Project,
  relativePath: string,
  namePath: string,
  signal?: AbortSignal,
): ScopeAhead | undefined {
  const name = parseNamePath(namePath).segments.at(-1)?.name;
  if (!name) return undefined;
  let abs: string;
  try {
    abs = project.sandbox.resolve(relativePath, { mustExist: true, kind: "file" }).abs;
  } catch {
    return undefined;
  }
  const scope = (async () => {
    const { session, adapter } = project.pool.sessionFor(abs);
    await session.whenReady(signal);
    const doc = await session.sync(abs);
    const file = { abs, uri: doc.uri };
    const cache = referenceScopeCache(project.root, session);
    const mark = cache.mark;
    const prepared = await referenceScope({
      project,
      session,
      adapter,
      file,
      name,
      ...(signal ? { signal } : {}),
    });
    const keep = () => {
      if (prepared.scope && !cache.project(abs)) cache.keepProject(mark, abs, prepared.scope);
    };
    return { session, prepared, keep };
  })().catch(() => undefined);
  return { abs, name, scope };
}
