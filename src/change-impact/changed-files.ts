/**
 * Which code files differ between the base commit and the work tree (staged, unstaged and
 * untracked alike: the work tree is what the servers see). git is never asked about the work tree
 * (a repository's fsmonitor or clean filter would run): each code file's bytes are hashed the way
 * git names a blob and compared with the base tree's object name; only files whose names differ
 * are read from git and compared as text (a line-ending conversion is no change).
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../core/errors.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { readProjectBytes } from "../text/read.js";
import type { BaseTree } from "./base-tree.js";

export type FileStatus = "added" | "modified" | "deleted" | "renamed";

export interface ChangedFile {
  rel: string;
  status: FileStatus;
  /** A renamed file's base path. */
  from?: string;
  /** The base text (null: added). */
  before: string | null;
  /** The work tree text (null: deleted). */
  after: string | null;
  /** The work tree file (absent: deleted). */
  path?: CheckedPath;
}

/** The object name git gives these bytes as a blob (sha1, or sha256 in such a repository). */
function blobName(bytes: Buffer, length: number): string {
  const hash = createHash(length === 64 ? "sha256" : "sha1");
  hash.update(`blob ${bytes.length}\0`);
  hash.update(bytes);
  return hash.digest("hex");
}

const sameText = (a: string, b: string) => a === b || a.replace(/\r\n/g, "\n") === b.replace(/\r\n/g, "\n");

/** Normalised path filters: each a file or folder, relative to the root. */
export function pathFilter(project: Project, paths: readonly string[]): (rel: string) => boolean {
  if (paths.length === 0) return () => true;
  const prefixes = paths.map((p) => {
    const rel = project.sandbox.resolveName(p).rel;
    return rel === "." ? "" : rel;
  });
  return (rel) => prefixes.some((p) => p === "" || rel === p || rel.startsWith(`${p}/`));
}

const isCode = (project: Project, rel: string) => project.pool.adapterForPath(rel) !== null;

/** A mostly-equal pair of texts: half their distinct non-blank lines shared (git's rename rule, roughly). */
function similar(a: string, b: string): boolean {
  const lines = (t: string) =>
    new Set(
      t
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== ""),
    );
  const x = lines(a);
  const y = lines(b);
  if (x.size === 0 || y.size === 0) return a === b;
  let shared = 0;
  for (const l of x) if (y.has(l)) shared++;
  return shared * 2 >= Math.max(x.size, y.size);
}

export async function changedFiles(
  project: Project,
  tree: BaseTree,
  wanted: (rel: string) => boolean,
  signal?: AbortSignal,
): Promise<ChangedFile[]> {
  const inSubmodule = (rel: string) => tree.submodules.some((m) => rel.startsWith(`${m}/`));
  const current = (await project.symbols.codeFiles("", signal)).filter(
    (p) => wanted(p.rel) && !inSubmodule(p.rel),
  );
  const out: ChangedFile[] = [];
  const present = new Set<string>();
  for (const path of current) {
    if (signal?.aborted)
      throw new AppError(
        "deadline_exceeded",
        "Out of time while comparing files with the base: narrow with paths.",
      );
    present.add(path.rel);
    const blob = tree.blobs.get(path.rel);
    // A file that cannot be read as text (too large, gone meanwhile) is no code change to review.
    const bytes = await readProjectBytes(path.abs, path.rel).then(
      (b) => b.bytes,
      () => null,
    );
    if (bytes === null) continue;
    if (blob !== undefined && blobName(bytes, blob.length) === blob) continue;
    const after = bytes.toString("utf8");
    if (blob === undefined) {
      out.push({ rel: path.rel, status: "added", before: null, after, path });
      continue;
    }
    const before = await tree.read(blob);
    if (!sameText(before, after)) out.push({ rel: path.rel, status: "modified", before, after, path });
  }
  const deleted: ChangedFile[] = [];
  for (const [rel, blob] of tree.blobs) {
    if (present.has(rel) || !wanted(rel) || !isCode(project, rel)) continue;
    // Not walked but on disk: ignored now (scalpel's own rules), not deleted.
    if (await stat(join(project.root, rel)).catch(() => null)) continue;
    // A secret file's base text is never read.
    if (project.sandbox.holdsSecret(rel)) continue;
    deleted.push({ rel, status: "deleted", before: await tree.read(blob), after: null });
  }
  // A deleted file and an added one with mostly the same text: a rename.
  for (const gone of deleted) {
    const i = out.findIndex(
      (f) => f.status === "added" && f.after !== null && similar(gone.before ?? "", f.after),
    );
    const found = out[i];
    if (found === undefined) {
      out.push(gone);
      continue;
    }
    out[i] = { ...found, status: "renamed", from: gone.rel, before: gone.before };
  }
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}
