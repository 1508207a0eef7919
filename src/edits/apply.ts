/**
 * The one writer. Validate every file, then write every file, or write none. The plan runs first
 * against an in-memory copy of the files it touches; only when every operation succeeded there
 * (files exist, expected text unchanged, ranges in bounds, no overlaps) is anything written. A
 * failed write restores the files already written.
 *
 * Reading the files and writing them happen under the per-file locks of every file the plan
 * touches, so an `expectedText` check and the write after it are one step for every other scalpel
 * write (any tool, any project of this process): an edit lands on the text it was computed against,
 * or fails with edit_conflict, never overwrites an edit that landed in between.
 */
import { AppError } from "../core/errors.js";
import { protectedPathError } from "../security/refusals.js";
import type { CheckedPath } from "../security/sandbox.js";
import { matchEol } from "../text/lines.js";
import { applyTextEdits } from "../text/positions.js";
import { assertEditable, decodeText, encodable } from "../text/read.js";
import { assertWritableMode } from "../text/write.js";
import { unifiedDiff } from "./diff.js";
import { withFileLocks } from "./file-locks.js";
import {
  bytesOf,
  checkExpected,
  type FileState,
  knownState,
  loadState,
  notFound,
  readAhead,
  sameBytes,
  setText,
  stale,
} from "./file-state.js";
import type { EditPlan, KnownFile } from "./plan.js";
import { writeAll } from "./write-all.js";

export interface ApplyOptions {
  dryRun: boolean;
  /**
   * The exact bytes every changed file must come out with (a checked preview's `after`): a plan
   * that now gives other bytes, or changes other files, writes nothing (edit_conflict, stale).
   */
  expectAfter?: ReadonlyMap<string, Buffer | null>;
}

export interface FileChange {
  relative_path: string;
  added_lines: number;
  removed_lines: number;
}

export interface ApplyResult {
  files: FileChange[];
  /** Unified diff of every changed file, `a/<rel>` → `b/<rel>`, line endings shown as `\n`. */
  diff: string;
  /** Absolute paths written or deleted (empty for a dry run). */
  written: string[];
  /** Exact previous bytes per touched path; null = did not exist. For undo. */
  before: Map<string, Buffer | null>;
  /** Exact new bytes per touched path; null = deleted. Lets undo detect later changes. */
  after: Map<string, Buffer | null>;
  /** The new text (decoded, BOM stripped) per changed path; null = deleted. */
  texts: Map<string, string | null>;
  /** Directories the write made for new files (empty for a dry run); remove them deepest first. */
  createdDirs: string[];
}

/** Every file a plan may read or write. */
export function planPaths(plan: EditPlan): CheckedPath[] {
  return plan.flatMap((op) => (op.kind === "rename" ? [op.from, op.to] : [op.path]));
}

export async function applyPlan(plan: EditPlan, opts: ApplyOptions): Promise<ApplyResult> {
  // A dry run writes nothing, so it needs no lock: it previews against the text it reads.
  if (opts.dryRun) return runPlan(plan, opts);
  return withFileLocks(
    planPaths(plan).map((p) => p.abs),
    () => runPlan(plan, opts),
  );
}

/** Applies plans while the caller holds the locks of every file they touch (see `withPlanLocks`). */
export type HeldApply = (plan: EditPlan, opts: ApplyOptions) => Promise<ApplyResult>;

/**
 * Runs `fn` holding the locks of `paths`; the plans `fn` applies through the function it is given
 * must stay within them. For work between writes that no other scalpel write may come between
 * (verify's write, check and restore, or a check of a preview and the write of the same bytes).
 */
export function withPlanLocks<T>(
  paths: readonly CheckedPath[],
  fn: (apply: HeldApply) => Promise<T>,
): Promise<T> {
  const locked = new Set(paths.map((p) => p.abs));
  return withFileLocks([...locked], () =>
    fn(async (plan, opts) => {
      refuseBeyond(plan, locked);
      return runPlan(plan, opts);
    }),
  );
}

/** A plan that reaches a file whose lock is not held is stale: the caller retries with its files. */
function refuseBeyond(plan: EditPlan, locked: ReadonlySet<string>): void {
  const beyond = planPaths(plan).find((p) => !locked.has(p.abs));
  if (beyond) {
    throw new AppError(
      "edit_conflict",
      `The edit now also touches '${beyond.rel}'; nothing was written. Run the tool again.`,
      { reason: "stale", relative_path: beyond.rel },
    );
  }
}

/**
 * Builds the plan while holding the locks of `paths` and applies it before letting go: no scalpel
 * write can land on those files in between, so a plan computed from their current text cannot go
 * stale. For a retry after a stale conflict (the optimistic first try lost a race). A plan that
 * reaches beyond `paths` is a stale conflict too: the caller retries with the new plan's files.
 */
export async function applyRecomputed(
  paths: readonly CheckedPath[],
  makePlan: () => Promise<EditPlan>,
  opts: ApplyOptions,
): Promise<{ plan: EditPlan; result: ApplyResult }> {
  if (opts.dryRun) {
    const plan = await makePlan();
    return { plan, result: await runPlan(plan, opts) };
  }
  return withFileLocks(
    paths.map((p) => p.abs),
    async () => {
      const plan = await makePlan();
      refuseBeyond(plan, new Set(paths.map((p) => p.abs)));
      return { plan, result: await runPlan(plan, opts) };
    },
  );
}

async function runPlan(plan: EditPlan, opts: ApplyOptions): Promise<ApplyResult> {
  const states = new Map<string, FileState>();
  const known = opts.dryRun ? knownFiles(plan) : new Map<string, KnownFile>();
  const ahead = readAhead(planPaths(plan).filter((p) => !known.has(p.abs)));
  const load = async (path: CheckedPath): Promise<FileState> => {
    const hit = states.get(path.abs);
    if (hit) return hit;
    const kept = known.get(path.abs);
    // A read that failed ahead is done again here, so its error comes in the plan's order.
    const state = kept ? knownState(path, kept) : ((await ahead.get(path.abs)) ?? (await loadState(path)));
    states.set(path.abs, state);
    return state;
  };

  for (const op of plan) {
    switch (op.kind) {
      case "edit": {
        const st = await load(op.path);
        if (st.current === null) throw notFound(op.path.rel);
        checkExpected(st, op.expectedText, op.path.rel);
        assertEditable({ lossy: st.lossy, encoding: st.format.encoding }, op.path.rel);
        const edits = op.edits.map((e) => ({ range: e.range, newText: matchEol(e.newText, st.eol) }));
        setText(st, applyTextEdits(st.current, edits, op.path.rel));
        break;
      }
      case "create": {
        const st = await load(op.path);
        if (st.current !== null) {
          if (op.ignoreIfExists && !op.overwrite) break;
          if (!op.overwrite) {
            throw new AppError(
              "file_exists",
              `'${op.path.rel}' already exists. Pass overwrite: true to replace it, or use replace_content to change part of it.`,
            );
          }
          // Overwriting keeps the file's line-ending style, encoding and BOM.
          setText(st, matchEol(op.content, st.eol));
        } else {
          setText(st, op.content);
        }
        // Every byte of the file is new: nothing undecodable is carried over.
        st.lossy = false;
        break;
      }
      case "delete": {
        const st = await load(op.path);
        if (st.current === null) {
          if (op.ignoreIfNotExists) break;
          throw notFound(op.path.rel);
        }
        checkExpected(st, op.expectedText, op.path.rel);
        setText(st, null);
        break;
      }
      case "rename": {
        if (op.from.abs === op.to.abs) break;
        const from = await load(op.from);
        const to = await load(op.to);
        if (from.current === null) throw notFound(op.from.rel);
        if (to.current !== null) {
          if (op.ignoreIfExists && !op.overwrite) break;
          if (!op.overwrite) {
            throw new AppError(
              "file_exists",
              `Cannot rename '${op.from.rel}' to '${op.to.rel}': the target already exists.`,
            );
          }
        }
        // An unedited file moves with its exact bytes, undecodable ones included.
        const bytes = bytesOf(from);
        const exact = from.raw !== undefined || bytes === from.originalBytes;
        setText(to, from.current);
        if (exact) to.raw = bytes;
        to.format = from.format;
        to.eol = from.eol;
        to.lossy = from.lossy;
        if (from.mode !== undefined) to.mode = from.mode;
        setText(from, null);
        break;
      }
      case "restore": {
        const st = await load(op.path);
        const now = bytesOf(st);
        if (!sameBytes(now, op.expected)) throw stale(op.path.rel);
        if (op.bytes === null) {
          setText(st, null);
        } else {
          const file = decodeText(op.bytes);
          setText(st, file.text);
          st.format = { encoding: file.encoding, bom: file.bom };
          st.eol = file.eol;
          st.lossy = file.lossy;
        }
        st.raw = op.bytes;
        break;
      }
    }
  }

  const files: FileChange[] = [];
  const diffs: string[] = [];
  const before = new Map<string, Buffer | null>();
  const after = new Map<string, Buffer | null>();
  const texts = new Map<string, string | null>();
  const changed: Array<{ state: FileState; bytes: Buffer | null }> = [];
  for (const s of states.values()) {
    const bytes = bytesOf(s);
    if (sameBytes(bytes, s.originalBytes)) continue;
    // Refused before anything is written, dry run included: the preview says what would happen.
    if (s.path.protectedBy !== undefined) throw protectedPathError(s.path.rel, s.path.protectedBy);
    if (s.originalBytes !== null && s.mode !== undefined) assertWritableMode(s.mode, s.path.rel);
    if (s.raw === undefined && s.current !== null && !encodable(s.current, s.format)) {
      throw new AppError(
        "invalid_argument",
        `The edit would leave half of a surrogate pair (e.g. part of an emoji) in '${s.path.rel}', which UTF-8 cannot store. Edit whole characters.`,
      );
    }
    changed.push({ state: s, bytes });
    const d = unifiedDiff(s.path.rel, s.original, s.current);
    files.push({ relative_path: s.path.rel, added_lines: d.added, removed_lines: d.removed });
    if (d.diff !== "") diffs.push(d.diff);
    before.set(s.path.abs, s.originalBytes);
    after.set(s.path.abs, bytes);
    texts.set(s.path.abs, s.current);
  }
  if (opts.expectAfter) assertSameOutcome(opts.expectAfter, changed);
  const result: ApplyResult = {
    files,
    diff: diffs.join(""),
    written: [],
    before,
    after,
    texts,
    createdDirs: [],
  };
  if (opts.dryRun || changed.length === 0) return result;
  const done = await writeAll(changed);
  result.written = done.written;
  result.createdDirs = done.createdDirs;
  return result;
}

/**
 * The files a dry run previews as kept between calls instead of reading them again (EditFileOp.known):
 * a rename_symbol dry run on rxjs read its 29 files (five thread-pool round trips each) on every call
 * although the pins had just taken the same texts from the kept ones.
 */
function knownFiles(plan: EditPlan): Map<string, KnownFile> {
  const known = new Map<string, KnownFile>();
  for (const op of plan) {
    if (op.kind === "edit" && op.known && !op.known.lossy && op.known.text === op.expectedText)
      known.set(op.path.abs, op.known);
  }
  return known;
}

/** The plan changes exactly the files of `expected`, to exactly those bytes; else stale. */
function assertSameOutcome(
  expected: ReadonlyMap<string, Buffer | null>,
  changed: ReadonlyArray<{ state: FileState; bytes: Buffer | null }>,
): void {
  const differs = changed.find((c) => {
    const want = expected.get(c.state.path.abs);
    return want === undefined || !sameBytes(want, c.bytes);
  });
  if (differs) throw stale(differs.state.path.rel);
  if (changed.length !== expected.size) {
    const seen = new Set(changed.map((c) => c.state.path.abs));
    const gone = [...expected.keys()].find((abs) => !seen.has(abs)) ?? "";
    throw new AppError(
      "edit_conflict",
      "A file the edit was checked against changed on disk meanwhile; nothing was written. Run the tool again.",
      { reason: "stale", relative_path: gone },
    );
  }
}
