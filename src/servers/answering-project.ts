/**
 * Which project answered: the tsconfig or Cargo package a file's references and diagnostics come
 * from, as the file's adapter declares it (a manifest found up the tree, or a question to the
 * server). Results name it so that an answer from an inferred project is never taken for the
 * project's own.
 */
import { stat } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import type { Logger } from "../core/log.js";
import type { LanguageAdapter, ProjectServer } from "../languages/adapter.js";
import type { Sandbox } from "../security/sandbox.js";

export interface ProjectAnswer {
  /** The project's manifest, project-relative (`tsconfig.json`, `engine/Cargo.toml`); null: none. */
  project: string | null;
  /** Said with the answer when the file is in no project (e.g. why its errors may be noise). */
  note?: string;
  /** Project-relative paths of the project's files inside the root, when listed. */
  files?: ReadonlySet<string>;
}

export interface ProjectQuery {
  sandbox: Sandbox;
  adapter: LanguageAdapter;
  server: ProjectServer;
  file: { abs: string; uri: string };
  listFiles?: boolean;
  signal?: AbortSignal;
  log?: Logger;
}

/**
 * The project that answers for a file; undefined when the adapter declares no way to tell or the
 * server could not say (the answer then names no project rather than a guess).
 */
export async function answeringProject(q: ProjectQuery): Promise<ProjectAnswer | undefined> {
  const how = q.adapter.project;
  if (!how) return undefined;
  if ("manifests" in how) return nearestManifest(q.sandbox, q.file.abs, how.manifests);
  let asked: Awaited<ReturnType<typeof how.ask>>;
  try {
    asked = await how.ask(q.server, q.file, {
      listFiles: q.listFiles === true,
      root: q.sandbox.root,
      ...(q.signal ? { signal: q.signal } : {}),
    });
  } catch (e) {
    if (q.signal?.aborted) throw e;
    q.log?.debug(`could not ask which project answers for ${basename(q.file.abs)}`, e);
    return undefined;
  }
  const answer: ProjectAnswer = asked.config ? named(q.sandbox, asked.config) : { project: null };
  if (asked.config === null && asked.note) answer.note = asked.note;
  if (asked.files) {
    const files = new Set<string>();
    for (const abs of asked.files) {
      const where = q.sandbox.locate(abs);
      if (where.kind === "file") files.add(where.path.rel);
      else if (where.kind === "secret") files.add(where.rel);
    }
    answer.files = files;
  }
  return answer;
}

/** A manifest as results show it; one above the root is named, never shown with a host path. */
function named(sandbox: Sandbox, abs: string): ProjectAnswer {
  const where = sandbox.locate(abs);
  if (where.kind === "file") return { project: where.path.rel };
  if (where.kind === "secret") return { project: where.rel };
  return { project: null, note: `answered by a ${basename(abs)} above the project root` };
}

/** The nearest of `names` from the file's directory up to the root (inclusive). */
async function nearestManifest(
  sandbox: Sandbox,
  fileAbs: string,
  names: readonly string[],
): Promise<ProjectAnswer> {
  const root = sandbox.root;
  let dir = dirname(fileAbs);
  for (;;) {
    for (const name of names) {
      if (await isFile(join(dir, name))) return named(sandbox, join(dir, name));
    }
    const up = dirname(dir);
    if (dir === root || up === dir || relative(root, up).startsWith("..")) break;
    dir = up;
  }
  return { project: null, note: `no ${names.join(" or ")} between the file and the project root` };
}

async function isFile(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}
