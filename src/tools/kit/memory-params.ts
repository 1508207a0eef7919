/** Parameter shape and checks that the memory tools share. */
import { z } from "zod";
import { AppError } from "../../core/errors.js";
import { maxMemoryNameLength } from "../../memory/names.js";
import type { Project } from "../../project/project.js";

export const memoryName = z
  .string()
  .describe(
    `Memory name: letters, digits, '_', '-', '.', and '/' for topic folders (e.g. 'architecture', 'topics/build'); at most ${maxMemoryNameLength} characters, without '.md'`,
  );

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
