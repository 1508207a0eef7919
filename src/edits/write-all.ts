/** Writing a plan's changed files, all or none: a failed write restores what was already written. */
import { rmdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { AppError } from "../core/errors.js";
import { makeDirs, writeFileAtomic } from "../text/write.js";
import type { FileState } from "./file-state.js";

export interface Change {
  state: FileState;
  bytes: Buffer | null;
}

/**
 * Writes new contents first and deletions last, so a failure leaves as little as possible to undo.
 * Returns the paths written or deleted and the directories made for new files.
 */
export async function writeAll(changed: Change[]): Promise<{ written: string[]; createdDirs: string[] }> {
  const order = [...changed.filter((c) => c.bytes !== null), ...changed.filter((c) => c.bytes === null)];
  const done: Array<{ change: Change; createdDirs: string[] }> = [];
  for (const c of order) {
    const s = c.state;
    const createdDirs: string[] = [];
    try {
      if (c.bytes === null) {
        await unlink(s.path.abs);
      } else {
        if (s.originalBytes === null) createdDirs.push(...(await makeDirs(dirname(s.path.abs), s.path.rel)));
        await writeFileAtomic(s.path.abs, c.bytes, s.mode, s.path.rel);
      }
      done.push({ change: c, createdDirs });
    } catch (e) {
      const failedRestore = await rollback([...done, { change: c, createdDirs }]);
      const code = (e as NodeJS.ErrnoException).code ?? "unknown error";
      const restored =
        failedRestore.length === 0
          ? "Every file was left as it was before."
          : `These files could not be restored and need a look: ${failedRestore.join(", ")}.`;
      // A refusal of the guarded open (a link swapped meanwhile, a file made read-only) keeps its code.
      if (e instanceof AppError) throw new AppError(e.code, `${e.message} ${restored}`, e.details);
      throw new AppError(
        "write_failed",
        `Could not write '${s.path.rel}' (${code}), so the edit was not applied. ${restored} Check the file's permissions and retry.`,
      );
    }
  }
  return { written: order.map((c) => c.state.path.abs), createdDirs: done.flatMap((d) => d.createdDirs) };
}

/** Returns the relative paths that could not be restored. */
async function rollback(done: Array<{ change: Change; createdDirs: string[] }>): Promise<string[]> {
  const failed: string[] = [];
  for (const { change, createdDirs } of [...done].reverse()) {
    const s = change.state;
    try {
      if (s.originalBytes === null) {
        await unlink(s.path.abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== "ENOENT") throw e;
        });
      } else {
        await writeFileAtomic(s.path.abs, s.originalBytes, s.mode, s.path.rel);
      }
      for (const dir of createdDirs) await rmdir(dir).catch(() => {});
    } catch {
      failed.push(s.path.rel);
    }
  }
  return failed;
}
