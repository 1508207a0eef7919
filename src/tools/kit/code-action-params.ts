/** The lines both code action tools take, and how an answer names them. */
import { z } from "zod";

export const linesInput = {
  relative_path: z.string(),
  start_line: z.number().int().min(1),
  end_line: z.number().int().min(1).optional(),
};

export function linesName(path: string, start: number, end: number | undefined): string {
  return end !== undefined && end !== start ? `${path}:${start}-${end}` : `${path}:${start}`;
}

/** The moves' answer when some importers may be left as they were: said, never silently left out. */
export const movedCompleteness = {
  complete: z.literal(false).optional().describe("some importers not updated (incomplete_reason)"),
  incomplete_reason: z.string().optional(),
};

export const leftOut = (unchecked: string | undefined) =>
  unchecked ? { complete: false as const, incomplete_reason: unchecked } : {};

export const renderLeftOut = (r: { incomplete_reason?: string | undefined }) =>
  r.incomplete_reason ? `\nincomplete: ${r.incomplete_reason}` : "";
