/**
 * Validate every file, then write every file, or write none. The plan runs first against an
 * in-memory copy of the files it touches; only when every operation succeeded there (files exist,
 * expected text unchanged, ranges in bounds, no overlaps) is anything written. A failed write
 * restores the files already written.
 */
import { mkdir, rmdir, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { AppError } from "../errors.js";
import type { CheckedPath } from "../security/sandbox.js";
import { unifiedDiff } from "./diff.js";
import type { EditPlan } from "./plan.js";
import { applyTextEdits, type Eol, matchEol, readTextFile, writeTextFileAtomic } from "./text.js";

export interface ApplyOptions {
  dryRun: boolean;
}

export interface FileChange {
  relative_path: string;
  added_lines: number;
  removed_lines: number;
}

export interface ApplyResult {
  files: FileChange[];
  /** Unified diff of every changed file, `a/<rel>` → `b/<rel>`, line endings shown as `\n`. */
  diff: string;
  /** Absolute paths written or deleted (empty for a dry run). */
  written: string[];
  /** Exact previous content (BOM included) per touched path; null = did not exist. For undo. */
  before: Map<string, string | null>;
  /** Exact new content per touched path; null = deleted. Lets undo detect later changes. */
  after: Map<string, string | null>;
}

interface FileState {
  path: CheckedPath;
  /** BOM-stripped text on disk when the plan started; null = missing. */
  original: string | null;
  originalBom: boolean;
  current: string | null;
  bom: boolean;
  eol: Eol;
  mode?: number;
}

export async function applyPlan(plan: EditPlan, opts: ApplyOptions): Promise<ApplyResult> {
  const states = new Map<string, FileState>();
  const load = async (path: CheckedPath): Promise<FileState> => {
    const hit = states.get(path.abs);
    if (hit) return hit;
    const state = await loadState(path);
    states.set(path.abs, state);
    return state;
  };

  for (const op of plan) {
    switch (op.kind) {
      case "edit": {
        const st = await load(op.path);
        if (st.current === null) throw notFound(op.path.rel);
        checkExpected(st, op.expectedText, op.path.rel);
        const edits = op.edits.map((e) => ({ range: e.range, newText: matchEol(e.newText, st.eol) }));
        st.current = applyTextEdits(st.current, edits, op.path.rel);
        break;
      }
      case "create": {
        const st = await load(op.path);
        if (st.current !== null) {
          if (op.ignoreIfExists && !op.overwrite) break;
          if (!op.overwrite) {
            throw new AppError(
              "file_exists",
              `'${op.path.rel}' already exists. Pass overwrite: true to replace it, or use replace_content to change part of it.`,
            );
          }
          // Overwriting keeps the file's line-ending style and BOM.
          st.current = matchEol(op.content, st.eol);
        } else {
          st.current = op.content;
        }
        break;
      }
      case "delete": {
        const st = await load(op.path);
        if (st.current === null) {
          if (op.ignoreIfNotExists) break;
          throw notFound(op.path.rel);
        }
        checkExpected(st, op.expectedText, op.path.rel);
        st.current = null;
        break;
      }
      case "rename": {
        if (op.from.abs === op.to.abs) break;
        const from = await load(op.from);
        const to = await load(op.to);
        if (from.current === null) throw notFound(op.from.rel);
        if (to.current !== null) {
          if (op.ignoreIfExists && !op.overwrite) break;
          if (!op.overwrite) {
            throw new AppError(
              "file_exists",
              `Cannot rename '${op.from.rel}' to '${op.to.rel}': the target already exists.`,
            );
          }
        }
        to.current = from.current;
        to.bom = from.bom;
        to.eol = from.eol;
        if (from.mode !== undefined) to.mode = from.mode;
        from.current = null;
        break;
      }
    }
  }

  const changed = [...states.values()].filter((s) => s.original !== s.current || s.originalBom !== s.bom);
  const files: FileChange[] = [];
  const diffs: string[] = [];
  const before = new Map<string, string | null>();
  const after = new Map<string, string | null>();
  for (const s of changed) {
    const d = unifiedDiff(s.path.rel, s.original, s.current);
    files.push({ relative_path: s.path.rel, added_lines: d.added, removed_lines: d.removed });
    if (d.diff !== "") diffs.push(d.diff);
    before.set(s.path.abs, s.original === null ? null : withBom(s.original, s.originalBom));
    after.set(s.path.abs, s.current === null ? null : withBom(s.current, s.bom));
  }
  const result: ApplyResult = { files, diff: diffs.join(""), written: [], before, after };
  if (opts.dryRun || changed.length === 0) return result;
  result.written = await writeAll(changed);
  return result;
}

async function loadState(path: CheckedPath): Promise<FileState> {
  try {
    const file = await readTextFile(path.abs, path.rel);
    const state: FileState = {
      path,
      original: file.text,
      originalBom: file.bom,
      current: file.text,
      bom: file.bom,
      eol: file.eol,
    };
    try {
      state.mode = (await stat(path.abs)).mode & 0o7777;
    } catch {
      // Mode is best effort.
    }
    return state;
  } catch (e) {
    if (e instanceof AppError && e.code === "file_not_found") {
      return { path, original: null, originalBom: false, current: null, bom: false, eol: "\n" };
    }
    throw e;
  }
}

/** Writes new contents first and deletions last, so a failure leaves as little as possible to undo. */
async function writeAll(changed: FileState[]): Promise<string[]> {
  const order = [...changed.filter((s) => s.current !== null), ...changed.filter((s) => s.current === null)];
  const done: Array<{ state: FileState; createdDirs: string[] }> = [];
  for (const s of order) {
    const createdDirs: string[] = [];
    try {
      if (s.current === null) {
        await unlink(s.path.abs);
      } else {
        if (s.original === null) createdDirs.push(...(await ensureDir(dirname(s.path.abs))));
        const opts = s.mode === undefined ? { bom: s.bom } : { bom: s.bom, mode: s.mode };
        await writeTextFileAtomic(s.path.abs, s.current, opts);
      }
      done.push({ state: s, createdDirs });
    } catch (e) {
      const failedRestore = await rollback([...done, { state: s, createdDirs }]);
      const code = (e as NodeJS.ErrnoException).code ?? "unknown error";
      const restored =
        failedRestore.length === 0
          ? "Every file was left as it was before."
          : `These files could not be restored and need a look: ${failedRestore.join(", ")}.`;
      throw new AppError(
        "write_failed",
        `Could not write '${s.path.rel}' (${code}), so the edit was not applied. ${restored} Check the file's permissions and retry.`,
      );
    }
  }
  return order.map((s) => s.path.abs);
}

/** Returns the relative paths that could not be restored. */
async function rollback(done: Array<{ state: FileState; createdDirs: string[] }>): Promise<string[]> {
  const failed: string[] = [];
  for (const { state: s, createdDirs } of [...done].reverse()) {
    try {
      if (s.original === null) {
        await unlink(s.path.abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== "ENOENT") throw e;
        });
      } else {
        const opts = s.mode === undefined ? { bom: s.originalBom } : { bom: s.originalBom, mode: s.mode };
        await writeTextFileAtomic(s.path.abs, s.original, opts);
      }
      for (const dir of createdDirs) await rmdir(dir).catch(() => {});
    } catch {
      failed.push(s.path.rel);
    }
  }
  return failed;
}

/** Creates `dir` and missing parents; returns the ones created, deepest first. */
async function ensureDir(dir: string): Promise<string[]> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let d = dir; d.length >= first.length; d = dirname(d)) {
    created.push(d);
    if (d === first) break;
  }
  return created;
}

function withBom(text: string, bom: boolean): string {
  return bom ? `\uFEFF${text}` : text;
}

function notFound(rel: string): AppError {
  return new AppError("file_not_found", `'${rel}' does not exist. Use find_file or list_dir to locate it.`);
}

function checkExpected(st: FileState, expected: string | undefined, rel: string): void {
  if (expected !== undefined && st.current !== expected) {
    throw new AppError(
      "edit_conflict",
      `'${rel}' changed on disk since it was read; nothing was written. Re-read the file (or run the tool again) and retry.`,
    );
  }
}
