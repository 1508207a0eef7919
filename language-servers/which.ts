/**
 * Finding executables without running them: on PATH, or in a project's `node_modules/.bin`.
 * (Running a server binary is left to `src/lsp/`.)
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `command` on `PATH`, or undefined. Paths with a separator are checked as given. */
export function which(command: string, pathVar = process.env.PATH ?? ""): string | undefined {
  if (command.includes("/")) return isExecutable(command) ? resolve(command) : undefined;
  for (const dir of pathVar.split(delimiter)) {
    if (dir === "") continue;
    const full = join(dir, command);
    if (isExecutable(full)) return full;
  }
  return undefined;
}

/**
 * A command declared in project config: absolute as given; with a `/`, relative to the project
 * root; a bare name from the project's `node_modules/.bin` first, then `PATH`.
 */
export function resolveProjectCommand(command: string, root: string): string | undefined {
  if (isAbsolute(command)) return isExecutable(command) ? command : undefined;
  if (command.includes("/")) {
    const full = resolve(root, command);
    return isExecutable(full) ? full : undefined;
  }
  const local = join(root, "node_modules", ".bin", command);
  if (isExecutable(local)) return local;
  return which(command);
}
