/** Parameter shape and checks that the memory tools share. */
import { z } from "zod";
import { AppError } from "../../core/errors.js";
import type { Project } from "../../project/project.js";

/** Checked by memory/names.ts (its length bound, no .md; '/' for topic folders, said in the manual). */
export const memoryName = z.string();

/**
 * Writing memory tools are not registered for a read-only project; this covers the paths that do not
 * go through registration (a one-shot run from the terminal, a project activated after start-up).
 */
export function assertWritable(project: Project): void {
  if (project.readOnly) {
    throw new AppError(
      "read_only",
      `Project '${project.name}' is read-only (--read-only or read_only: true in .scalpel/project.yml): memories cannot be written. read_memory and list_memories still work.`,
    );
  }
}
