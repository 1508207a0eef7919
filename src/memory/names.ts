/**
 * Memory names: the only input that picks a file in the memory store, so they are checked lexically
 * here before any path is built. A valid name cannot address anything but a `.md` file below the
 * store's folder; the store still resolves the result through the project's sandbox.
 */
import { AppError } from "../core/errors.js";

export const maxMemoryNameLength = 128;

const allowed = /^[A-Za-z0-9_.\-/]+$/;

/** Why `name` is not a valid memory name, or null when it is (after `normalizeMemoryName`). */
export function memoryNameProblem(name: string): string | null {
  if (name.length === 0) return "it is empty";
  if (name.includes("\0")) return "it contains a NUL byte";
  if (name.length > maxMemoryNameLength) return `it is longer than ${maxMemoryNameLength} characters`;
  if (name.startsWith("/")) return "it starts with '/' (names are relative to the memory folder)";
  if (!allowed.test(name))
    return "only letters, digits, '_', '-', '.' and '/' (for topic folders) are allowed";
  for (const segment of name.split("/")) {
    if (segment === "") return "it has an empty segment ('//' or a trailing '/')";
    if (segment === "." || segment === "..") return `'${segment}' is not allowed as a segment`;
    // Dot-files are left alone by the store: atomic writes use hidden temp files next to the memory.
    if (segment.startsWith(".")) return "a segment cannot start with '.'";
  }
  return null;
}

/**
 * The canonical name: a trailing `.md` is dropped (results never carry it, but callers may copy a
 * file name from disk), then the name is validated.
 */
export function normalizeMemoryName(input: string): string {
  const name = input.endsWith(".md") && input.length > 3 ? input.slice(0, -3) : input;
  const problem = memoryNameProblem(name);
  if (problem !== null) {
    const shown = JSON.stringify(input.length > 140 ? `${input.slice(0, 140)}…` : input);
    throw new AppError(
      "invalid_argument",
      `Memory name ${shown} is not allowed: ${problem}. Use a name like 'architecture' or 'topics/build-notes'.`,
    );
  }
  return name;
}

export function isValidMemoryName(name: string): boolean {
  return memoryNameProblem(name) === null;
}
