/**
 * The result envelope: the fields every tool's answer may carry besides its own, declared once here
 * and merged into every output schema by `outputShapeOf` (registration, the budget, the docs test).
 * No tool declares these fields itself; a field added here (say a count of what was left out)
 * reaches every tool's schema at once.
 */
import { z } from "zod";

export const envelopeShape = {
  truncated: z
    .boolean()
    .optional()
    .describe(
      "true when the answer was shortened (to fit max_answer_chars or a result limit); absent otherwise",
    ),
  hint: z.string().optional().describe("with truncated: how to get the rest or narrow the query"),
};

export type Envelope = z.infer<z.ZodObject<typeof envelopeShape>>;

/** A tool's answer: its own fields plus the envelope's. */
export type Answer<O extends z.ZodRawShape> = z.infer<z.ZodObject<O>> & Envelope;

/** The output schema a client sees for a tool whose own fields are `output`. */
export function outputShapeOf<O extends z.ZodRawShape>(output: O): O & typeof envelopeShape {
  for (const key of Object.keys(envelopeShape)) {
    // One home for these fields: a tool that declared one itself would shadow the envelope's.
    if (key in output) throw new Error(`output schema declares the envelope field '${key}' itself`);
  }
  return { ...output, ...envelopeShape };
}

/** The hint used when a tool gives none of its own. */
export const defaultNarrowHint =
  "Narrow the query (a more specific name path, relative_path or line range), or raise max_answer_chars where the tool takes it.";
