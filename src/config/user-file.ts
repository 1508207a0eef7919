/**
 * The small JSON files scalpel keeps at user level in `$SCALPEL_HOME` (the project registry, the
 * trust store): one reader and one writer, so both fail the same way. `display` names the file in
 * messages — never the host path.
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { z } from "zod";
import { AppError } from "../core/errors.js";
import { writeTextFileAtomic } from "../text/positions.js";

/** The parsed file; null when it does not exist; `invalid_config` (with `invalid`) when it is not one. */
export async function readUserJson<T>(
  file: string,
  display: string,
  schema: z.ZodType<T>,
  invalid: string,
): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new AppError("invalid_config", `${display} cannot be read (${code}).`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_config", `${display} ${invalid}`);
  return parsed.data;
}

/** Written atomically (temp + rename), the folder created first. */
export async function writeUserJson(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeTextFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { bom: false });
}
