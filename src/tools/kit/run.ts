/**
 * The single wrapper every tool call goes through, from MCP and from the terminal alike: it checks
 * the arguments, builds the context, runs the tool, keeps the answer within its budget, and turns
 * every failure into a result the caller can act on.
 */
import type { z } from "zod";
import { withDeadline } from "../../core/deadlines.js";
import { AppError, isAppError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { scrubPaths } from "../../security/scrub.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { ToolContext, ToolDef } from "./define.js";
import {
  defaultNarrowHint,
  type Envelope,
  limitReason,
  nextCall,
  pagedCount,
  pagedTake,
  pagingOf,
} from "./envelope.js";
import { inputObject } from "./input.js";

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface RunOptions {
  workspace: Workspace;
  log: Logger;
  signal?: AbortSignal;
  progress?: (message: string, done?: number, total?: number) => void;
  toolNames?: string[];
}

export const defaultMaxAnswerChars = 20_000;

export async function runTool(def: ToolDef, rawArgs: unknown, opts: RunOptions): Promise<ToolResult> {
  const log = opts.log.child(def.name);
  try {
    const args = parseArguments(def, rawArgs);
    // Every call has a deadline (deadlines.ts): past it the call is cancelled and told so.
    const raw = (await withDeadline(def, opts.signal, (signal) =>
      def.run(args as never, makeContext({ ...opts, signal }, log)),
    )) as Record<string, unknown>;
    // The project after the call: activate_project answers under the rules of the project it opened.
    const gate = opts.workspace.project?.secretGate;
    await gate?.refresh();
    const result = gate ? gate.redact(raw) : raw;
    const max = typeof args.max_answer_chars === "number" ? args.max_answer_chars : defaultMaxAnswerChars;
    const given = givenArgs(def, args);
    // A tool that knows a better cut than the generic steps fits its answer first (edit dry runs).
    const own = def.fit?.(result as never, max, { tool: def.name, args: given }) ?? result;
    const fitted = fitBudget(def, own as Record<string, unknown>, max, given);
    const text = renderAnswer(def, fitted);
    return { content: [{ type: "text", text: gate ? gate.redact(text) : text }], structuredContent: fitted };
  } catch (error) {
    return errorResult(def.name, error, opts.workspace, log);
  }
}

/**
 * The arguments checked against the tool's strict input object (unknown parameters refused, defaults
 * filled in), or `invalid_argument` saying what to change. The terminal calls it before it opens the
 * project, so a refused call does nothing at all.
 */
export function parseArguments(def: ToolDef, rawArgs: unknown): Record<string, unknown> {
  const parsed = inputObject(def).safeParse(rawArgs ?? {});
  if (!parsed.success)
    throw new AppError("invalid_argument", invalidArguments(def.name, describeZodError(parsed.error)));
  return parsed.data as Record<string, unknown>;
}

/**
 * The caller's arguments without those equal to their defaults (the SDK fills defaults in before
 * our handler runs): what a `next` call repeats, so it stays short and names only what was asked.
 */
function givenArgs(def: ToolDef, args: Record<string, unknown>): Record<string, unknown> {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => {
      const schema = (def.input as Record<string, z.ZodType | undefined>)[key];
      const fallback = schema?.safeParse(undefined);
      return !(fallback?.success && same(fallback.data, value));
    }),
  );
}

function makeContext(opts: RunOptions, log: Logger): ToolContext {
  const ws = opts.workspace;
  return {
    get project() {
      const p = ws.project;
      if (!p) {
        const why = ws.startupError
          ? ` The project given at start-up could not be activated: ${ws.startupError}`
          : "";
        throw new AppError(
          "no_active_project",
          `No project is active.${why} Call activate_project with the project's root path (or start scalpel with --project PATH).`,
        );
      }
      return p;
    },
    workspace: ws,
    signal: opts.signal ?? new AbortController().signal,
    log,
    progress: opts.progress ?? (() => {}),
    wantsProgress: opts.progress !== undefined,
    toolNames: opts.toolNames ?? [],
  };
}

/** The tool's text, with the envelope's truncation note (and the next call) added in one place for every tool. */
export function renderAnswer(def: ToolDef, answer: Record<string, unknown>): string {
  const text = def.render(answer as never);
  const { truncated, hint, next } = answer as Envelope;
  if (!truncated) return text;
  const note = `${text}\n(truncated) ${hint ?? defaultNarrowHint}`;
  return next ? `${note}\nnext: ${next}` : note;
}

const size = (value: unknown) => JSON.stringify(value).length;

/**
 * The larger of the answer's two forms: Claude Code shows the model `JSON.stringify(structuredContent)`
 * and drops the text when both exist, other hosts show only the text — so the budget holds for each.
 */
function shownSize(def: ToolDef, answer: Record<string, unknown>): number {
  return Math.max(size(answer), renderAnswer(def, answer).length);
}

/**
 * Keeps an answer within `max` characters in both forms the client may show (its JSON and its
 * text, see `shownSize`): the tool's
 * shrink steps first, then — for a paged list — whole items off the end, then a generic cut. Every
 * step keeps the answer valid for the tool's output schema, and the envelope fields are the only
 * ones added. An answer that was not shortened is returned as it is and never says `truncated`;
 * one that was says why, and a paged one says `shown` of `total` and the `next` call.
 * `args` are the caller's own arguments, repeated in `next`.
 */
export function fitBudget(
  def: ToolDef,
  result: Record<string, unknown>,
  max: number,
  args: Record<string, unknown> = {},
): Record<string, unknown> {
  const paging = pagingOf(def.paging, result);
  const offset = typeof args.offset === "number" ? args.offset : 0;
  const total = typeof result.total === "number" ? result.total : undefined;
  const count = (r: Record<string, unknown>): number | undefined => {
    const items = paging ? r[paging.items] : undefined;
    return Array.isArray(items) && paging ? pagedCount(paging, items) : undefined;
  };
  const listed = count(result);
  const paged = paging !== undefined && total !== undefined && listed !== undefined;
  /** The tool listed fewer items than the whole answer has (its own per-call limit). */
  const partial = paged && offset + listed < total;
  if (shownSize(def, result) <= max && !partial) return result;

  let stepHint: string | undefined;
  const narrow = () => stepHint ?? paging?.narrowHint ?? def.narrowHint ?? defaultNarrowHint;
  const envelope = (r: Record<string, unknown>): Envelope => {
    const shown = count(r);
    if (!paging || !paged || shown === undefined) return { truncated: true, hint: narrow() };
    const noun = (n: number) => `${n} ${paging.noun}${n === 1 ? "" : paging.noun.endsWith("h") ? "es" : "s"}`;
    if (offset + shown < total) {
      const why = shown < listed ? `to fit max_answer_chars=${max}` : limitReason(paging, args);
      const range = shown === 0 ? "none" : `${offset + 1}–${offset + shown}`;
      return {
        truncated: true,
        shown,
        next: nextCall(def.name, args, { offset: offset + shown }),
        hint: `Listed ${range} of ${noun(total)} (${why}); the call in next lists the rest from offset ${offset + shown}. ${narrow()}`,
      };
    }
    // Every item is listed, with details left out: the same call with room for them all.
    const need = Math.ceil((shownSize(def, result) + 1000) / 1000) * 1000;
    return {
      truncated: true,
      shown,
      next: nextCall(def.name, args, { max_answer_chars: need }),
      hint: `All ${noun(total - offset)}${offset > 0 ? ` from offset ${offset}` : ""} listed, details left out to fit max_answer_chars=${max}; the call in next has room for them. ${narrow()}`,
    };
  };
  const withEnvelope = (r: Record<string, unknown>) => ({ ...r, ...envelope(r) });
  const fits = (r: Record<string, unknown>) => shownSize(def, withEnvelope(r)) <= max;
  // Room for the envelope fields that a shortened answer gains, and for a text larger than the JSON.
  const room = (r: Record<string, unknown>) => max - (shownSize(def, withEnvelope(r)) - size(r));

  let current = result as Envelope & Record<string, unknown>;
  if (!fits(current)) {
    for (const step of def.shrink ?? []) {
      const next = step(current as never) as Envelope & Record<string, unknown>;
      // A step that sets its own hint knows best where to continue (read_file: the next line).
      if (next.hint !== current.hint) stepHint = next.hint;
      current = next;
      if (fits(current)) break;
    }
  }
  if (paging && paged && !fits(current)) {
    const items = current[paging.items] as unknown[];
    const units = count(current) ?? 0;
    // Sizes grow about in proportion to the items: the search starts where that puts the page's end.
    const guess = Math.floor((units * max) / shownSize(def, withEnvelope(current)));
    current = keepWholeItems(current, paging.items, fits, units, guess, (n) => pagedTake(paging, items, n));
    if (count(current) === 0 && items.length > 0) {
      // One item over the whole budget: list it with its long texts cut, so the next page moves on.
      const first = pagedTake(paging, items, 1)[0];
      const one = { ...current, [paging.items]: [first] };
      const spare = max - (shownSize(def, withEnvelope(one)) - size(first));
      current = { ...current, [paging.items]: [cutToFit({ item: first }, spare).item] };
    }
  }
  // The generic cut measures JSON; when the text is the larger form, cut again by its excess.
  for (let round = 0; round < 8 && !fits(current); round++) {
    current = cutToFit(current, Math.min(size(current) - 1, room(current)), def.keepWhole);
  }
  if (!partial && JSON.stringify(current) === JSON.stringify(result)) return result;
  return withEnvelope(current);
}

/**
 * The longest prefix of the paged list that fits: whole items, so the next page starts where this one
 * ends. The search probes `guess` first, then steps away from it doubling each time, then halves what
 * is left: each probe measures the whole answer in both forms (rxjs `Observable`, 278 of its 392 sites
 * on the page: about 9 halvings, and fitting took 5.7 ms of each warm call under the profiler), and the
 * page's end is usually a few items from the guess.
 */
function keepWholeItems<T extends Record<string, unknown>>(
  answer: T,
  key: string,
  fits: (r: Record<string, unknown>) => boolean,
  units: number,
  guess: number,
  first: (n: number) => unknown[],
): T {
  const take = (n: number) => ({ ...answer, [key]: first(n) });
  let lo = 0;
  let hi = units;
  const g = Math.max(0, Math.min(units, guess));
  if (fits(take(g))) {
    lo = g;
    for (let step = 1; lo + step <= hi; step *= 2) {
      if (!fits(take(lo + step))) {
        hi = lo + step - 1;
        break;
      }
      lo += step;
    }
  } else {
    hi = g - 1;
    for (let step = 1; hi - step + 1 > lo; step *= 2) {
      const p = hi - step + 1;
      if (fits(take(p))) {
        lo = p;
        break;
      }
      hi = p - 1;
    }
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(take(mid))) lo = mid;
    else hi = mid - 1;
  }
  return take(lo);
}

/** Strings shorter than this are never cut: names, paths, kinds and enum values stay whole. */
const minCutString = 200;

/**
 * The last resort when a tool's own steps are exhausted (or it has none): repeatedly halve the
 * largest array or long string in the answer. Dropping array items and shortening long free-text
 * strings keeps every value of the same type, so the answer stays valid for its schema.
 */
export function cutToFit<T extends Record<string, unknown>>(
  answer: T,
  max: number,
  keepWhole: readonly string[] = [],
): T {
  const out = structuredClone(answer);
  for (let round = 0; round < 200 && size(out) > max; round++) {
    let best: { holder: Record<string | number, unknown>; key: string | number; size: number } | undefined;
    // A one-item array is emptied only when nothing inside it can be cut: its item's long text goes
    // first (a search's one file holding one huge line keeps the line, cut).
    let lone: typeof best;
    const visit = (holder: Record<string | number, unknown>, key: string | number) => {
      const value = holder[key];
      if (Array.isArray(value)) {
        const s = size(value);
        if (value.length === 1 && (!lone || s > lone.size)) lone = { holder, key, size: s };
        if (value.length > 1 && (!best || s > best.size)) best = { holder, key, size: s };
        for (let i = 0; i < value.length; i++) visit(value as unknown as Record<number, unknown>, i);
      } else if (typeof value === "string") {
        if (value.length >= minCutString && (!best || value.length > best.size)) {
          best = { holder, key, size: value.length };
        }
      } else if (value !== null && typeof value === "object") {
        for (const k of Object.keys(value)) visit(value as Record<string, unknown>, k);
      }
    };
    for (const k of Object.keys(out)) if (!keepWhole.includes(k)) visit(out as Record<string, unknown>, k);
    best ??= lone;
    if (!best) break;
    const value = best.holder[best.key];
    if (Array.isArray(value)) value.length = Math.floor(value.length / 2);
    else if (typeof value === "string")
      best.holder[best.key] = `${value.slice(0, Math.floor(value.length / 2))}…`;
  }
  return out;
}

/** The one wording of a call whose arguments do not fit the input schema, ending with what to do. */
function invalidArguments(tool: string, details: string): string {
  return `Invalid arguments for ${tool}: ${details}. Call it again with the parameters its input schema lists (names, types, required ones).`;
}

/**
 * The SDK's McpServer answers calls it rejects before our handler runs — arguments that fail the
 * input schema, an unknown or disabled tool, and (should it ever happen) an answer that fails the
 * output schema — with a bare text. These become error results in the same form as ours.
 */
export function sdkToolError(sdkMessage: string, writingTools: readonly string[] = []): ToolResult {
  // McpError prefixes its message with "MCP error <code>: ".
  const message = sdkMessage.replace(/^MCP error -?\d+: /, "");
  const input = /^Input validation error: Invalid arguments for tool (\S+): ([\s\S]*)$/.exec(message);
  if (input)
    return errorAnswer("invalid_argument", invalidArguments(input[1]!, input[2]!.split("\n").join("; ")));
  const missing = /^Tool (\S+) not found$/.exec(message);
  if (missing && writingTools.includes(missing[1]!)) {
    return errorAnswer(
      "read_only",
      `${missing[1]} writes files and scalpel was started with --read-only, so it is not available. The reading tools still work; restart scalpel without --read-only to edit.`,
    );
  }
  if (missing) {
    return errorAnswer(
      "unknown_tool",
      `There is no tool '${missing[1]}'. List the tools (tools/list) and call one of them.`,
    );
  }
  const disabled = /^Tool (\S+) disabled$/.exec(message);
  if (disabled) {
    return errorAnswer(
      "read_only",
      `${disabled[1]} writes files and the active project is read-only, so it is disabled. The reading tools still work; to edit, activate the project without read-only (--read-only, read_only: true in .scalpel/project.yml).`,
    );
  }
  return errorAnswer("internal", `${message}. The details are in scalpel's log (stderr).`);
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((i) =>
      // The unknown-parameter message names its parameters itself (input.ts), as the SDK shows it.
      i.code === "unrecognized_keys"
        ? i.message
        : `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`,
    )
    .join("; ");
}

/** Turns any failure into an error result without host paths or stack traces. */
export function errorResult(tool: string, error: unknown, workspace: Workspace, log: Logger): ToolResult {
  let code: string;
  let message: string;
  if (isAppError(error)) {
    code = error.code;
    message = error.message;
  } else {
    log.error(`unexpected failure in ${tool}`, error);
    code = "internal";
    message = `Internal error in ${tool}: ${error instanceof Error ? error.message : String(error)}. The details are in scalpel's log (stderr).`;
  }
  const gate = workspace.project?.secretGate;
  const scrubbed = scrubPaths(message, workspace.project?.root);
  return errorAnswer(code, gate ? gate.redact(scrubbed) : scrubbed);
}

/**
 * An error result: the code and the message (which ends with what to do next) in the text, since
 * hosts show the model only the text of an error; the code again in `_meta` for programs. Never
 * `structuredContent`: the SDK client validates it against the tool's output schema even on
 * errors (client/index.js callTool), and an error has none of the answer's fields.
 */
export function errorAnswer(code: string, message: string): ToolResult {
  return {
    content: [{ type: "text", text: `Error (${code}): ${message}` }],
    isError: true,
    _meta: { "scalpel/error": { code } },
  };
}
