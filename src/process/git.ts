/**
 * The one way scalpel runs git, on a repository it does not trust. A repository's own config can
 * name programs that git runs (core.fsmonitor on any look at the work tree, diff.external and
 * textconv drivers on diffs, filter drivers when blobs are converted, hooks, core.pager,
 * core.sshCommand and credential helpers when a partial clone fetches a missing object), and its
 * discovery walks up past the project root. So git is only ever asked about objects (rev-parse,
 * ls-tree, cat-file without --filters/--textconv), never about the work tree or the index, and runs:
 * - with GIT_DIR set to the root's own `.git` folder (no discovery, nothing above the root);
 * - with system and user config not read and HOME / XDG_CONFIG_HOME an empty folder;
 * - with the program-running settings overridden on the command line, where they win over the
 *   repository's config (fsmonitor, hooks, pager, external diff, ssh, askpass, every transport
 *   forbidden, so a lazy fetch cannot start one);
 * - without a terminal prompt or pager, with a time bound and an output bound, in its own process group.
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/log.js";
import { scalpelHome } from "../core/user-state.js";
import { type BoundedRun, runBounded } from "./bounded-command.js";

/** Settings that make git run a program, each turned off (`-c` beats the repository's config). */
const overrides = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.untrackedCache=false",
  "core.sshCommand=false",
  "core.askPass=false",
  "core.alternateRefsCommand=",
  "credential.helper=",
  "diff.external=",
  "protocol.allow=never",
  "gc.auto=0",
  "maintenance.auto=false",
];

/**
 * HOME and XDG_CONFIG_HOME for git: a folder inside scalpel's own home that is never created, so
 * git finds no user config, attributes or credentials, and nothing is written outside the project
 * and that home (a temporary folder made for it was left behind by every process).
 */
function homeFolder(): string {
  return join(scalpelHome(), "git-home-never-created");
}

/**
 * The root's own `.git` folder, or why it cannot be read: none, a `.git` file or link (it points
 * elsewhere and is not followed), or a repository that keeps objects or its common folder outside
 * (`objects/info/alternates`, `commondir`: git would read them there).
 */
export function ownGitDir(root: string): { dir: string } | { refused: string } {
  const dir = join(root, ".git");
  const exists = (p: string) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  };
  try {
    if (!lstatSync(dir).isDirectory()) return { refused: "its .git is a file or link that points elsewhere" };
  } catch {
    return { refused: "it has no .git folder" };
  }
  if (exists(join(dir, "objects", "info", "alternates")) || exists(join(dir, "commondir"))) {
    return { refused: "its .git folder takes objects from another repository (alternates or commondir)" };
  }
  return { dir };
}

export interface GitOptions {
  timeoutMs?: number;
  maxOutputChars?: number;
  signal?: AbortSignal;
}

/** Runs `git <args>` on the repository at `root` (whose `.git` folder `ownGitDir` accepted) the safe way. */
export function runGit(
  root: string,
  args: readonly string[],
  opts: GitOptions,
  log: Logger,
): Promise<BoundedRun> {
  const gitDir = join(root, ".git");
  const home = homeFolder();
  const env: Record<string, string> = {
    GIT_DIR: gitDir,
    GIT_WORK_TREE: root,
    // The caller's environment (a hook's) may point these elsewhere.
    GIT_COMMON_DIR: gitDir,
    GIT_OBJECT_DIRECTORY: join(gitDir, "objects"),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: "",
    GIT_INDEX_FILE: join(gitDir, "index"),
    GIT_CEILING_DIRECTORIES: root,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // The caller's own -c settings (a hook's environment) must not add programs back.
    GIT_CONFIG_COUNT: "0",
    GIT_CONFIG_PARAMETERS: "",
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_ASKPASS: "false",
    SSH_ASKPASS: "false",
    GIT_ALLOW_PROTOCOL: "",
    GIT_NO_LAZY_FETCH: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    LC_ALL: "C",
  };
  const argv = ["--no-pager", ...overrides.flatMap((o) => ["-c", o]), ...args];
  return runBounded(
    { command: "git", args: argv, env },
    root,
    {
      timeoutMs: opts.timeoutMs ?? 30_000,
      maxOutputChars: opts.maxOutputChars ?? 64 * 1024 * 1024,
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
    log,
  );
}
