/**
 * Where scalpel keeps what it writes for itself: `$SCALPEL_HOME` (default `~/.scalpel`), per user,
 * outside every project. A project's own state (the undo journal, the symbol index) lives in a
 * folder of its own below `state/`, named by the project root's path, so a cloned repository can
 * neither ship it nor read another project's: a `.scalpel/journal/` committed to a repository used
 * to be undone into its `src/` (issue 18). Folders are created 0700: only the user opens them.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { basename, join } from "node:path";

export function scalpelHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SCALPEL_HOME;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : join(homedir(), ".scalpel");
}

/** The folder of one kind of state (`journal`, `symbols`) of the project at `root` (a real path). */
export function projectStateDir(root: string, kind: string, env: NodeJS.ProcessEnv = process.env): string {
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "root";
  const id = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(scalpelHome(env), "state", `${name}-${id}`, kind);
}

/** Folders of user state: readable and writable by the user alone. */
export const stateDirMode = 0o700;
