/**
 * The six tasks of the token benchmark, each done twice: with scalpel's tools and by the
 * grep-and-read route (agent-tools.ts), and scored against the TypeScript compiler (truth.ts).
 *
 * An answer is a set of keys (`file:line` sites, `file:name` symbols or `file:line` body lines),
 * so both routes are scored the same way. The grep route's precision/recall is what its Grep
 * lines (or its Read window) identify, before the agent's reading filters them; the declaration
 * lines an agent recognises on sight are left out of its answer.
 *
 * Targets were chosen as everyday work in these code bases, not for the ratio: the helper that
 * turns any input into an Observable (used in 43 files), an overloaded scheduling helper used in
 * 9, the central teardown method, an argument helper whose new parameter breaks 9 callers, the
 * scheduler module, and the abstract base class of every zod v3 schema.
 *
 * The rename's grep route Reads windows around its Grep hits (a careful agent knows the lines);
 * whole-file Reads, what Read does without offset/limit, return about five times as much, and
 * the run prints the totals that way too.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sitesOfFile } from "../../src/references/listing.js";
import { readOutlineFile } from "../../src/symbols/outline.js";
import { type AgentTools, type GrepHit, tscErrorSites } from "./agent-tools.js";
import type { ScalpelRoute } from "./scalpel-route.js";
import { lineKeys, siteKey } from "./score.js";
import type { Truth } from "./truth.js";

export interface TaskContext {
  dir: string;
  truth: Truth;
  /** Path of the typescript package's tsc, for the grep route's `tsc --noEmit`. */
  tscPath: string;
}

export interface Task {
  id: number;
  name: string;
  base: "rxjs" | "zod";
  target: string;
  /** The scalpel tools the task uses, for the table. */
  tools: string;
  truth(ctx: TaskContext): string[];
  grep(ctx: TaskContext, a: AgentTools, truth: string[]): string[];
  scalpel(ctx: TaskContext, s: ScalpelRoute): Promise<string[]>;
}

// ---- shapes of scalpel's answers that the scoring reads (docs/tools.md) ----

/** References by file: each entry its path line and a line per site (src/references/listing.ts). */
interface RefsAnswer {
  files: string[];
  next?: string;
}

function referenceKeys(r: RefsAnswer): string[] {
  return r.files.flatMap(sitesOfFile).map((x) => siteKey(x.relative_path, x.line));
}
interface SymbolLike {
  /** Absent where it would repeat the last segment of name_path (compact shapes). */
  name?: string;
  name_path?: string;
  relative_path?: string;
  start_line: number;
  end_line: number;
  body?: string;
}
interface FindSymbolAnswer {
  symbols: SymbolLike[];
  next?: string;
}
/** A symbol's own name: `name`, or the last segment of its name path without an overload index. */
function symbolName(sym: SymbolLike): string {
  const name =
    sym.name ??
    sym.name_path
      ?.split("/")
      .at(-1)
      ?.replace(/\[\d+\]$/, "");
  if (name === undefined) throw new Error(`a symbol without name or name_path: ${JSON.stringify(sym)}`);
  return name;
}

interface EditAnswer {
  edit_id?: string;
  /** A line per diagnostic, `path:line:column severity …`, the same elsewhere after ` — also at ` (src/diagnostics/diagnostic.ts). */
  diagnostics_delta?: { new: string[]; complete: boolean };
}

/**
 * The files and lines a delta's diagnostic line names: where it starts, and the places after
 * ` — also at ` (the same diagnostic elsewhere).
 */
function deltaSites(line: string): string[] {
  const [head = "", also] = line.split(" — also at ");
  const places = [head, ...(also === undefined ? [] : also.split(", "))];
  return places.map((place) => {
    const m = /^(?:(.+?):)?(\d+):\d+(?: |$)/.exec(place);
    if (!m) throw new Error(`not a diagnostic line: ${line}`);
    return siteKey(m[1] ?? SIG_FILE, Number(m[2]));
  });
}
interface ProjectDiagnosticsAnswer {
  files: Array<{ relative_path: string; diagnostics: Array<{ line: number }> }>;
}
/** A file's outline: its path, then one `name_path [kind] start-end` line per symbol (src/symbols/outline.ts). */
type OutlineFile = string;
interface OverviewAnswer {
  /** An outline, or a file with its symbols as objects. */
  files: Array<OutlineFile | { relative_path: string; symbols: SymbolLike[] }>;
  next?: string;
}
interface ImplementationsAnswer {
  /** Grouped by file. */
  implementations: OutlineFile[];
}

/** `file:name` of each symbol an outline entry lists. */
function outlineKeys(entry: OutlineFile): string[] {
  const { relative_path, lines } = readOutlineFile(entry);
  const out: string[] = [];
  for (const line of lines) {
    const m = /^(\S+) \[/.exec(line);
    if (m) out.push(`${relative_path}:${symbolName({ name_path: m[1]!, start_line: 0, end_line: 0 })}`);
  }
  return out;
}

// ---- the working copy as the tasks leave it ----

export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(join(dir, "src"), { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith(".ts")) {
      const abs = join(e.parentPath, e.name);
      out.set(abs, readFileSync(abs, "utf8"));
    }
  }
  return out;
}

/** Lines that differ from the snapshot (renames keep line counts). */
function changedLines(truth: Truth, before: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [abs, text] of before) {
    const now = readFileSync(abs, "utf8");
    if (now === text) continue;
    const a = text.split("\n");
    const b = now.split("\n");
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== b[i]) out.push(siteKey(truth.rel(abs), i + 1));
    }
  }
  return out;
}

export async function restore(before: Map<string, string>): Promise<void> {
  for (const [abs, text] of before) {
    if (readFileSync(abs, "utf8") !== text) await writeFile(abs, text);
  }
}

function assertUnchanged(before: Map<string, string>, what: string): void {
  for (const [abs, text] of before) {
    if (readFileSync(abs, "utf8") !== text) throw new Error(`${what}: ${abs} was not restored`);
  }
}

const hitKeys = (hits: GrepHit[]) => hits.map((h) => siteKey(h.file, h.line));

function declarationLines(ctx: TaskContext, file: string, namePath: string): Set<string> {
  const sf = ctx.truth;
  return new Set(
    sf.declarations(file, namePath).map((d) => {
      const src = d.getSourceFile();
      return siteKey(file, src.getLineAndCharacterOfPosition(d.name!.getStart(src)).line + 1);
    }),
  );
}

// ---- 1. callers of a function ----

const CALLERS_FILE = "src/internal/observable/innerFrom.ts";
const callers: Task = {
  id: 1,
  name: "callers of a function",
  base: "rxjs",
  target: "innerFrom (43 files)",
  tools: "find_referencing_symbols",
  truth: (ctx) => ctx.truth.references(CALLERS_FILE, "innerFrom").map((s) => siteKey(s.file, s.line)),
  grep(ctx, a) {
    // One Grep for the whole word: the name is distinctive, so this is what a careful agent runs.
    const decl = declarationLines(ctx, CALLERS_FILE, "innerFrom");
    return hitKeys(a.grep(/\binnerFrom\b/, "src")).filter((k) => !decl.has(k));
  },
  async scalpel(_ctx, s) {
    // innerFrom has an overload signature: the bare name names the function (signatures and all).
    const pages = await s.paged<RefsAnswer>("find_referencing_symbols", {
      name_path: "innerFrom",
      relative_path: CALLERS_FILE,
    });
    return pages.flatMap((p) => referenceKeys(p.structured));
  },
};

// ---- 2. a precise rename ----

const RENAME_FILE = "src/internal/util/executeSchedule.ts";
const RENAME_TO = "scheduleWork";
const RENAME_READ_CONTEXT = 5;
/** The note naming what the rename's grep route returns when every Read is of the whole file. */
export const WHOLE_FILE_ROUTE = "the same route with whole-file Reads";
const rename: Task = {
  id: 2,
  name: "precise rename",
  base: "rxjs",
  target: `executeSchedule → ${RENAME_TO} (3 overloads, 9 files)`,
  tools: "rename_symbol",
  truth: (ctx) => ctx.truth.renameSites(RENAME_FILE, "executeSchedule").map((s) => siteKey(s.file, s.line)),
  grep(_ctx, a, truth) {
    const hits = a.grep(/\bexecuteSchedule\b/, "src");
    const want = new Set(truth);
    let wholeFiles = 0;
    for (const file of [...new Set(hits.map((h) => h.file))]) {
      // Claude Code's rule: a file is read before it is edited (any part of it). The agent knows
      // the lines from the Grep, so it reads a window of RENAME_READ_CONTEXT lines around each
      // cluster of hits — enough to see that each is the symbol — not the whole file.
      const inFile = hits.filter((h) => h.file === file);
      const windows: Array<[number, number]> = [];
      for (const h of inFile) {
        const w: [number, number] = [Math.max(1, h.line - RENAME_READ_CONTEXT), h.line + RENAME_READ_CONTEXT];
        const prev = windows.at(-1);
        if (prev && w[0] <= prev[1] + 1) prev[1] = w[1];
        else windows.push(w);
      }
      for (const [first, last] of windows) a.readFile(file, first, last - first + 1);
      wholeFiles += a.wholeReadChars(file);
      // Where every hit is the symbol, one replace_all Edit renames the file; otherwise site by site.
      if (inFile.every((h) => want.has(siteKey(h.file, h.line)))) {
        a.edit(file, "executeSchedule", RENAME_TO, true);
      } else {
        for (const h of inFile.filter((x) => want.has(siteKey(x.file, x.line)))) {
          a.edit(file, h.text, h.text.replace(/\bexecuteSchedule\b/g, RENAME_TO));
        }
      }
    }
    const windowReads = a.calls.filter((c) => c.tool === "Read").reduce((n, c) => n + c.chars, 0);
    a.note(WHOLE_FILE_ROUTE, a.totalChars - windowReads + wholeFiles);
    return hitKeys(hits);
  },
  async scalpel(ctx, s) {
    const before = await snapshot(ctx.dir);
    // The three overloads are one symbol to the compiler: the bare name renames them all.
    const r = await s.call<EditAnswer>("rename_symbol", {
      name_path: "executeSchedule",
      relative_path: RENAME_FILE,
      new_name: RENAME_TO,
    });
    const changed = changedLines(ctx.truth, before);
    await s.uncounted("undo_edit", r.structured.edit_id ? { edit_id: r.structured.edit_id } : {});
    assertUnchanged(before, "undo of the rename");
    return changed;
  },
};

// ---- 3. one method's body ----

const BODY_FILE = "src/internal/Subscription.ts";
const BODY_READ_ABOVE = 20;
const BODY_READ_LIMIT = 80;
const body: Task = {
  id: 3,
  name: "one method's body",
  base: "rxjs",
  target: "Subscription/unsubscribe",
  tools: "find_symbol include_body",
  truth(ctx) {
    const { first, last } = ctx.truth.span(BODY_FILE, "Subscription/unsubscribe");
    return lineKeys(BODY_FILE, first, last);
  },
  grep(_ctx, a, truth) {
    // Grep the method's signature in the class's file, then Read a window around it: from a few
    // lines above (its doc comment) on, page after page until the method's end is in view.
    const [hit] = a.grep(/^\s*unsubscribe\(\)/, BODY_FILE);
    if (!hit) throw new Error("grep route: unsubscribe() not found");
    const end = Math.max(...truth.map((k) => Number(k.slice(k.lastIndexOf(":") + 1))));
    const read: string[] = [];
    let offset = Math.max(1, hit.line - BODY_READ_ABOVE);
    for (;;) {
      const { first, last } = a.readFile(BODY_FILE, offset, BODY_READ_LIMIT);
      read.push(...lineKeys(BODY_FILE, first, last));
      if (last >= end || last < first + BODY_READ_LIMIT - 1) break;
      offset = last + 1;
    }
    return read;
  },
  async scalpel(_ctx, s) {
    const r = await s.call<FindSymbolAnswer>("find_symbol", {
      name_path_pattern: "Subscription/unsubscribe",
      relative_path: BODY_FILE,
      include_body: true,
    });
    return r.structured.symbols.flatMap((sym) => {
      const lines = (sym.body ?? "").split("\n").length;
      return lineKeys(sym.relative_path ?? BODY_FILE, sym.end_line - lines + 1, sym.end_line);
    });
  },
};

// ---- 4. what broke after a signature change ----

const SIG_FILE = "src/internal/util/args.ts";
const SIG_OLD =
  "export function popScheduler(args: any[]): SchedulerLike | undefined {\n  return isScheduler(last(args)) ? args.pop() : undefined;\n}";
const SIG_NEW =
  "export function popScheduler(args: any[], fallback: SchedulerLike | undefined): SchedulerLike | undefined {\n  return isScheduler(last(args)) ? args.pop() : fallback;\n}";
const signature: Task = {
  id: 4,
  name: "what broke after a signature change",
  base: "rxjs",
  target: "popScheduler(args) + a required parameter",
  tools: "replace_symbol_body (diagnostics delta)",
  truth(ctx) {
    // Errors the change adds: the whole program checked before and after, on disk.
    const key = (d: { file: string; line: number }) => siteKey(d.file, d.line);
    const before = new Set(ctx.truth.errorSites().map(key));
    const abs = join(ctx.dir, SIG_FILE);
    const original = readFileSync(abs, "utf8");
    if (!original.includes(SIG_OLD)) throw new Error(`${SIG_FILE} does not hold the expected popScheduler`);
    try {
      writeFileSync(abs, original.replace(SIG_OLD, SIG_NEW));
      return ctx.truth
        .errorSites()
        .map(key)
        .filter((k) => !before.has(k));
    } finally {
      writeFileSync(abs, original);
    }
  },
  grep(ctx, a) {
    // Find the declaration, Read just its lines (the agent knows where it is), Edit, run tsc.
    const [hit] = a.grep(/function popScheduler\b/, "src");
    if (!hit) throw new Error("grep route: popScheduler not found");
    a.readFile(hit.file, hit.line, SIG_OLD.split("\n").length);
    a.edit(hit.file, SIG_OLD, SIG_NEW);
    const out = a.tscNoEmit(ctx.tscPath);
    return tscErrorSites(out, ctx.dir).map((d) => siteKey(d.file, d.line));
  },
  async scalpel(ctx, s) {
    const before = await snapshot(ctx.dir);
    const r = await s.call<EditAnswer>("replace_symbol_body", {
      name_path: "popScheduler",
      relative_path: SIG_FILE,
      body: SIG_NEW,
    });
    const delta = r.structured.diagnostics_delta;
    const found = (delta?.new ?? []).flatMap(deltaSites);
    if (!delta?.complete) {
      // The delta could not compare everything: the agent checks the project, as the note says.
      const p = await s.call<ProjectDiagnosticsAnswer>("get_project_diagnostics", {});
      for (const f of p.structured.files)
        for (const d of f.diagnostics) found.push(siteKey(f.relative_path, d.line));
    }
    await s.uncounted("undo_edit", r.structured.edit_id ? { edit_id: r.structured.edit_id } : {});
    assertUnchanged(before, "undo of the signature change");
    return found;
  },
};

// ---- 5. a module overview ----

const OVERVIEW_DIR = "src/internal/scheduler";
const DECLARATION =
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function\*?|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/;
const overview: Task = {
  id: 5,
  name: "module overview",
  base: "rxjs",
  target: `${OVERVIEW_DIR}/ (21 files)`,
  tools: "get_symbols_overview",
  truth: (ctx) => ctx.truth.topLevel(OVERVIEW_DIR).map((s) => `${s.file}:${s.name}`),
  grep(_ctx, a) {
    // List the files, then one Grep for every top-level declaration line: names and signatures
    // of the whole module in two calls, no file read.
    a.glob(OVERVIEW_DIR);
    const hits = a.grep(DECLARATION, OVERVIEW_DIR);
    return hits.map((h) => `${h.file}:${DECLARATION.exec(h.text)![1]}`);
  },
  async scalpel(_ctx, s) {
    const pages = await s.paged<OverviewAnswer>("get_symbols_overview", { relative_path: OVERVIEW_DIR });
    const out: string[] = [];
    for (const f of pages.flatMap((p) => p.structured.files)) {
      // A directory at depth 0 (or a degraded overview) lists outlines.
      if (typeof f === "string") out.push(...outlineKeys(f));
      else for (const sym of f.symbols) out.push(`${f.relative_path}:${symbolName(sym)}`);
    }
    return out;
  },
};

// ---- 6. the subclasses of an abstract class ----

const ABSTRACT_FILE = "src/v3/types.ts";
const subclasses: Task = {
  id: 6,
  name: "subclasses of an abstract class",
  base: "zod",
  target: "v3 ZodType (abstract)",
  tools: "find_implementations",
  // The language service also answers the class itself and five arrow functions cast to a
  // subclass's `create` type (`((arg) => ZodString.create(…)) as …`): only the subclasses count.
  truth: (ctx) =>
    ctx.truth
      .implementations(ABSTRACT_FILE, "ZodType")
      .filter((s) => s.kind === "class" && !(s.file === ABSTRACT_FILE && s.name === "ZodType"))
      .map((s) => `${s.file}:${s.name}`),
  grep(_ctx, a) {
    const hits = a.grep(/extends ZodType\b/, "src");
    return hits.map(
      (h) => `${h.file}:${/(?:class|interface)\s+([\w$]+)/.exec(h.text)?.[1] ?? `line ${h.line}`}`,
    );
  },
  async scalpel(_ctx, s) {
    const r = await s.call<ImplementationsAnswer>("find_implementations", {
      name_path: "ZodType",
      relative_path: ABSTRACT_FILE,
    });
    return r.structured.implementations.flatMap(outlineKeys);
  },
};

export const TASKS: readonly Task[] = [callers, rename, body, signature, overview, subclasses];
