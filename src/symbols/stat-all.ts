import { stat } from "node:fs/promises";

/** Size and mtime, as the table keeps them. */
export type StatLike = { size: number; mtimeMs: number };

/** Stats many files, a bounded number at a time: undefined when unknown, null when gone. */
export async function statAll(abs: readonly string[]): Promise<(StatLike | null | undefined)[]> {
  const out: (StatLike | null | undefined)[] = new Array(abs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < abs.length; i = next++) {
      try {
        const s = await stat(abs[i]!);
        out[i] = { size: s.size, mtimeMs: s.mtimeMs };
      } catch (e) {
        out[i] = (e as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(64, abs.length) }, worker));
  return out;
}
