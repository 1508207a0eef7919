/**
 * Which directories may become the active project. The project root is the sandbox's boundary, so
 * moving it is moving the sandbox: an agent steered by a prompt injection could otherwise activate
 * `/etc` and read `passwd`, or `/` and start rust-analyzer on the whole filesystem.
 *
 * Allowed: the `--project` root and directories under a `--projects-in` folder (both named by the
 * user on the command line), and the projects in the user-level registry (`scalpel register PATH`
 * or `scalpel trust PATH` in a terminal; activating an allowed directory by path also adds it,
 * so that its name works next time). A directory inside an allowed root is allowed too (a package
 * of a monorepo). Never allowed, whoever names them: `/`, the home folder itself and the folders
 * above it, and system folders.
 */
import { homedir } from "node:os";
import { sep } from "node:path";
import { AppError } from "../core/errors.js";

/** Refused as a project and everything inside them: the system's own files. */
const systemTrees = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
  "/var/cache",
  "/var/lib",
  "/var/log",
  "/var/run",
  "/var/spool",
  "/var/mail",
  "/System",
  "/private/etc",
  "/private/var/db",
  "/private/var/run",
];

/** Refused themselves (they hold many projects or users), while what lies inside them may be a project. */
const containers = [
  "/",
  "/home",
  "/Users",
  "/var",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/tmp",
  "/private",
  "/Volumes",
  "/root",
];

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === "/" ? "/" : `${dir}${sep}`);
}

/** Why `root` (a real path) can never be a project, or null. */
export function forbiddenRootReason(root: string, home: string = homedir()): string | null {
  if (containers.includes(root))
    return `'${root}' holds other users' or projects' folders, it is not a project`;
  if (root === home)
    return "the home folder itself is not a project (it holds credentials and every other project)";
  if (home !== "/" && inside(home, root)) return "a folder above the home folder is not a project";
  const tree = systemTrees.find((t) => inside(root, t));
  if (tree !== undefined) return `'${tree}' is a system folder, not a project`;
  return null;
}

/** Throws `project_not_allowed` for a root that can never be a project. */
export function refuseForbiddenRoot(root: string, home?: string): void {
  const reason = forbiddenRootReason(root, home);
  if (reason !== null) {
    throw new AppError(
      "project_not_allowed",
      `This directory cannot be activated: ${reason}. Activate the project's own root directory (the folder with its package.json, Cargo.toml or .git).`,
    );
  }
}

/** True when `root` is one of `roots` or inside one of them. */
export function isWithin(root: string, roots: readonly string[]): boolean {
  return roots.some((r) => inside(root, r));
}

/** The error for a directory the user has not allowed (it names no path). */
export function notAllowedError(): AppError {
  return new AppError(
    "project_not_allowed",
    `This directory is not a project the user has allowed. A project can be activated when it is the --project of this session, lies under a --projects-in folder, or was registered by the user: ask the user to run \`scalpel register PATH\` (or \`scalpel trust PATH\`) in a terminal, or to start scalpel with --project PATH.`,
  );
}
