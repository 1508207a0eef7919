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
