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
  total: z
    .number()
    .int()
    .optional()
    .describe("items in the full answer (every page), counted even past what is listed"),
  shown: z
    .number()
    .int()
    .optional()
    .describe("with truncated: items listed in this answer (from the call's offset)"),
  next: z
    .string()
    .optional()
    .describe(
      'with truncated: the one call that gets the rest, as `tool {json arguments}` (e.g. the next page with "offset")',
    ),
};

/**
 * A tool whose answer is a list that may be walked page by page. The tool lists from its `offset`
 * argument and sets `total`; the wrapper cuts the list at whole items to fit the budget and adds
 * `shown` and the `next` call. The tool must take an `offset` parameter.
 */
export interface Paging {
  /** The top-level array field that is paged. */
  items: string;
  /** What one item is called in the hint, singular ("match", "reference"). */
  noun: string;
  /**
   * The most items the tool lists in one call, whatever the budget (the hint says why it stopped):
   * a number, or the parameter that sets it with its default (find_symbol's max_matches).
   */
  limit?: number | { param: string; default: number };
  /**
   * When one entry of the list holds several items (references grouped by file): how many items a
   * list holds, and the list cut to its first `n` items. Absent: each entry is one item.
   */
  units?: { count(list: unknown[]): number; take(list: unknown[], n: number): unknown[] };
  /** How to narrow the query, where it differs from the tool's `narrowHint`. */
  narrowHint?: string;
}

/** Why a page stopped at the tool's own limit, naming the limit the call really had. */
export function limitReason(paging: Paging, args: Record<string, unknown>): string {
  const limit = paging.limit;
  if (typeof limit !== "object") return `this tool lists at most ${limit} per call`;
  const n = typeof args[limit.param] === "number" ? (args[limit.param] as number) : limit.default;
  return `${limit.param}=${n} lists at most ${n} per call`;
}

/**
 * A paging that holds for one answer only, set by its tool when the answer's items are not the
 * tool's usual ones (get_symbols_overview of a single file pages its top-level symbols, not files).
 * Kept beside the answer, not in it: the SDK checks every key of structuredContent.
 */
const answerPagings = new WeakMap<object, Paging>();

export function withPaging<T extends object>(answer: T, paging: Paging): T {
  answerPagings.set(answer, paging);
  return answer;
}

/** The paging that holds for this answer (as the tool returned it): its own (`withPaging`), else the tool's. */
export function pagingOf(defPaging: Paging | undefined, answer: object): Paging | undefined {
  return answerPagings.get(answer) ?? defPaging;
}

/** How many paged items `list` holds. */
export function pagedCount(paging: Paging, list: unknown[]): number {
  return paging.units ? paging.units.count(list) : list.length;
}

/** The first `n` paged items of `list`. */
export function pagedTake(paging: Paging, list: unknown[], n: number): unknown[] {
  return paging.units ? paging.units.take(list, n) : list.slice(0, n);
}

/** The `next` call: the tool with the caller's own arguments and the given changes. */
export function nextCall(
  tool: string,
  args: Record<string, unknown>,
  change: Record<string, unknown>,
): string {
  return `${tool} ${JSON.stringify({ ...args, ...change })}`;
}

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
