/**
 * The user-level project registry: project name → root directory, so that `activate_project` can
 * take a name instead of a path. Its roots are also the projects the user allowed to be activated
 * (src/config/allowed-roots.ts): entries come from `scalpel register`/`scalpel trust` in a
 * terminal, and from activations of directories that were already allowed. A small JSON file in `$SCALPEL_HOME/projects.json` (default
 * `~/.scalpel/projects.json`), written atomically. Two servers registering at the same moment may
 * lose one of the two entries (read-modify-write without a lock); the next activation adds it
 * again, which is cheaper than a lock file that a killed process could leave behind.
 */
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { scalpelHome } from "../core/user-state.js";
import { readUserJson, writeUserJson } from "./user-file.js";

/** How the file is named in messages: never the host path. */
const display = "$SCALPEL_HOME/projects.json";

const registrySchema = z.object({
  projects: z.record(z.string(), z.object({ root: z.string().refine(isAbsolute) })).default({}),
});
type Registry = z.infer<typeof registrySchema>;

export { scalpelHome } from "../core/user-state.js";

export function registryFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(scalpelHome(env), "projects.json");
}

/** A name that could be registered: the same characters a project name is likely to have, no paths. */
export function isProjectName(s: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.@+-]*$/.test(s) && s.length <= 100;
}

export class ProjectRegistry {
  constructor(readonly file: string = registryFile()) {}

  /** null: no registry yet. Throws when the file exists but is not a registry. */
  private async load(): Promise<Registry | null> {
    return readUserJson(
      this.file,
      display,
      registrySchema,
      'is not a valid project registry ({"projects": {"name": {"root": "/abs/path"}}}). Fix or delete it.',
    );
  }

  /** The root registered under `name`, or null. */
  async lookup(name: string): Promise<string | null> {
    const reg = await this.load();
    return reg?.projects[name]?.root ?? null;
  }

  /** Every registered root: the projects the user allowed (see allowed-roots.ts). */
  async roots(): Promise<string[]> {
    const reg = await this.load().catch(() => null);
    return Object.values(reg?.projects ?? {}).map((p) => p.root);
  }

  async names(): Promise<string[]> {
    const reg = await this.load().catch(() => null);
    return Object.keys(reg?.projects ?? {}).sort();
  }

  /**
   * Registers `root` under `name`. A name already used by another root is taken over: the project
   * activated last is the one an agent most likely means. Other entries for the same root are
   * dropped, so a renamed project does not linger under its old name.
   */
  async register(name: string, root: string): Promise<void> {
    if (!isProjectName(name)) return;
    // A broken file is the user's to fix: refuse to overwrite it (load throws).
    const reg = (await this.load()) ?? { projects: {} };
    if (reg.projects[name]?.root === root) return;
    for (const [other, entry] of Object.entries(reg.projects)) {
      if (entry.root === root) delete reg.projects[other];
    }
    reg.projects[name] = { root };
    const sorted = Object.fromEntries(Object.entries(reg.projects).sort(([a], [b]) => (a < b ? -1 : 1)));
    await writeUserJson(this.file, { projects: sorted });
  }
}
