/** The output fields that say which project answered (references, diagnostics). */
import { z } from "zod";
import type { ProjectAnswer } from "../../servers/answering-project.js";

export const projectFields = {
  project: z
    .string()
    .nullable()
    .optional()
    .describe(
      "the project that answered: its manifest, project-relative (tsconfig.json, crates/x/Cargo.toml); null: the file is in none; absent: the server cannot tell",
    ),
  project_note: z
    .string()
    .optional()
    .describe("said when the file is in no project, e.g. why its errors may be noise"),
};

/** `project` / `project_note` of an answer, as output fields. */
export function projectOutput(a: Pick<ProjectAnswer, "project" | "note"> | undefined): {
  project?: string | null;
  project_note?: string;
} {
  if (!a) return {};
  return a.note ? { project: a.project, project_note: a.note } : { project: a.project };
}
