/**
 * The undo journal: the exact bytes each applied edit replaced and wrote, so it can be reversed as
 * long as nobody changed those files since. Entries are persisted in the project's state folder
 * under `$SCALPEL_HOME` (one JSON file per edit, written atomically), outside the work tree, so
 * undo_edit works after a restart and undoes only edits this user made through scalpel: a journal
 * a repository ships in `.scalpel/journal/` is never read (it once let a committed entry's `before`
 * be written into `src/` by the agent's first undo).
 *
 * Persisted paths are project-relative and go back through the sandbox on load: an entry naming a
 * path the sandbox refuses now (outside the root, a secret file) is dropped, so the journal never
 * restores content the project may not show. Bounded by entry count and by total bytes; unreadable
 * entries are skipped with a warning.
 */
import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { projectStateDir, stateDirMode } from "../core/user-state.js";
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import { writeFileAtomic } from "../text/write.js";
import type { EditPlan } from "./plan.js";

export interface JournalFile {
  path: CheckedPath;
  /** Exact bytes before the edit; null = the edit created the file. */
  before: Buffer | null;
  /** Exact bytes after the edit; null = the edit deleted the file. */
  after: Buffer | null;
}

export interface JournalEntry {
  id: string;
  tool: string;
  files: JournalFile[];
  /** An undo's own entry: undoing it again is a redo, never the default. */
  reverses?: string;
  undone: boolean;
}

export interface JournalOptions {
  /**
   * Absolute folder for persisted entries (default: the project's state folder under
   * `$SCALPEL_HOME`); null keeps the journal in memory only.
   */
  dir?: string | null;
  maxEntries?: number;
  maxBytes?: number;
  log?: Logger;
}

/** Undo is for recent mistakes, not history. */
const defaultMaxEntries = 200;
/** File contents kept (before + after, all entries); older entries go first. */
const defaultMaxBytes = 64 * 1024 * 1024;
/** Where the journal of the project at `root` is kept. */
export function journalFolder(root: string): string {
  return projectStateDir(root, "journal");
}

const entryFile = /^(\d{10})-(e[0-9a-f]+)\.json$/;

interface Stored {
  entry: JournalEntry;
  seq: number;
  bytes: number;
}

interface PersistedEntry {
  version: 1;
  id: string;
  tool: string;
  reverses?: string;
  undone: boolean;
  files: Array<{ path: string; before: string | null; after: string | null }>;
}

export class EditJournal {
  private readonly stored: Stored[] = [];
  private nextSeq = 1;
  private loading: Promise<void> | null = null;
  /** Journal updates run one at a time: sequence numbers, pruning and files stay consistent. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly dir: string | null;

  constructor(
    private readonly sandbox: Sandbox,
    options: JournalOptions = {},
  ) {
    this.dir = options.dir === undefined ? journalFolder(sandbox.root) : options.dir;
    this.maxEntries = options.maxEntries ?? defaultMaxEntries;
    this.maxBytes = options.maxBytes ?? defaultMaxBytes;
    this.log = options.log;
  }

  private readonly log: Logger | undefined;

  async record(entry: Omit<JournalEntry, "undone">): Promise<void> {
    await this.serial(async () => {
      const stored: Stored = {
        entry: { ...entry, undone: false },
        seq: this.nextSeq++,
        bytes: sizeOf(entry.files),
      };
      this.stored.push(stored);
      await this.persist(stored);
      await this.prune();
    });
  }

  /** The entry to undo: the given id, or the latest edit that is not an undo and not undone. */
  async pick(id: string | undefined): Promise<JournalEntry> {
    await this.serial(async () => {});
    const entries = this.stored.map((s) => s.entry);
    if (id !== undefined) {
      const hit = entries.find((e) => e.id === id);
      if (!hit) {
        throw new AppError(
          "invalid_argument",
          `No edit '${id}' in the journal (it keeps the last ${this.maxEntries} edits). Call undo_edit without edit_id to undo the latest edit.`,
        );
      }
      if (hit.undone) throw new AppError("invalid_argument", `Edit '${id}' was already undone.`);
      return hit;
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (!e.undone && e.reverses === undefined) return e;
    }
    throw new AppError("invalid_argument", "There is no edit to undo in the journal.");
  }

  async markUndone(id: string): Promise<void> {
    await this.serial(async () => {
      const s = this.stored.find((x) => x.entry.id === id);
      if (!s) return;
      s.entry.undone = true;
      await this.persist(s);
    });
  }

  /** Ids of the entries held, oldest first (for tests and diagnostics). */
  async ids(): Promise<string[]> {
    await this.serial(async () => {});
    return this.stored.map((s) => s.entry.id);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.loading ??= this.load();
      await this.loading;
      return fn();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The journal folder (created, for the user alone, on first write); null when not persisting. */
  private async folder(create: boolean): Promise<string | null> {
    if (this.dir === null) return null;
    if (create) {
      try {
        await mkdir(this.dir, { recursive: true, mode: stateDirMode });
      } catch (e) {
        this.log?.warn("the undo journal folder is not usable; undo works for this session only", e);
        return null;
      }
    }
    return this.dir;
  }

  private async load(): Promise<void> {
    const dir = await this.folder(false);
    if (dir === null) return;
    const names = (await readdir(dir).catch(() => [] as string[])).sort();
    for (const name of names) {
      if (name.endsWith(".scalpel-tmp")) {
        // Left by a crash between write and rename: never a complete entry.
        await unlink(join(dir, name)).catch(() => {});
        continue;
      }
      const m = entryFile.exec(name);
      if (!m) continue;
      const seq = Number(m[1]);
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(join(dir, name), "utf8"));
      } catch (e) {
        this.log?.warn(`skipping unreadable undo journal entry ${name}`, e instanceof Error ? e.message : e);
        continue;
      }
      const entry = this.revive(raw, name);
      if (entry) this.stored.push({ entry, seq, bytes: sizeOf(entry.files) });
    }
    await this.prune();
  }

  /** A persisted entry back as a live one, or null (logged) when it is malformed or refused. */
  private revive(raw: unknown, name: string): JournalEntry | null {
    if (!isPersisted(raw)) {
      this.log?.warn(`skipping malformed undo journal entry ${name}`);
      return null;
    }
    const files: JournalFile[] = [];
    for (const f of raw.files) {
      let path: CheckedPath;
      try {
        path = this.sandbox.resolve(f.path);
      } catch {
        // The sandbox refuses the path now (a secret file, a link out of the root): forget the
        // whole entry, a partial undo would not be the edit's reverse.
        this.log?.info(`dropping undo journal entry ${raw.id}: a file it touched is not allowed`);
        return null;
      }
      files.push({ path, before: fromBase64(f.before), after: fromBase64(f.after) });
    }
    return {
      id: raw.id,
      tool: raw.tool,
      files,
      undone: raw.undone,
      ...(raw.reverses !== undefined ? { reverses: raw.reverses } : {}),
    };
  }

  private fileName(s: Stored): string {
    return `${String(s.seq).padStart(10, "0")}-${s.entry.id}.json`;
  }

  private async persist(s: Stored): Promise<void> {
    try {
      const dir = await this.folder(true);
      if (dir === null) return;
      const e = s.entry;
      const body: PersistedEntry = {
        version: 1,
        id: e.id,
        tool: e.tool,
        ...(e.reverses !== undefined ? { reverses: e.reverses } : {}),
        undone: e.undone,
        files: e.files.map((f) => ({
          path: f.path.rel,
          before: f.before === null ? null : f.before.toString("base64"),
          after: f.after === null ? null : f.after.toString("base64"),
        })),
      };
      await writeFileAtomic(join(dir, this.fileName(s)), Buffer.from(JSON.stringify(body), "utf8"));
    } catch (e) {
      // The edit itself is written; only undo after a restart is lost.
      this.log?.warn(`could not persist undo journal entry ${s.entry.id}`, e);
    }
  }

  /** Oldest entries go while over either bound; the newest entry always stays. */
  private async prune(): Promise<void> {
    let total = this.stored.reduce((n, s) => n + s.bytes, 0);
    while (this.stored.length > 1 && (this.stored.length > this.maxEntries || total > this.maxBytes)) {
      const old = this.stored.shift()!;
      total -= old.bytes;
      const dir = await this.folder(false);
      if (dir !== null) await unlink(join(dir, this.fileName(old))).catch(() => {});
    }
  }
}

/** The journal's view of an applied plan: the files it changed, with exact bytes. */
export function journalFiles(
  sandbox: Sandbox,
  before: ReadonlyMap<string, Buffer | null>,
  after: ReadonlyMap<string, Buffer | null>,
): JournalFile[] {
  return [...before].flatMap(([abs, b]) => {
    const path = sandbox.fromAbsolute(abs);
    return path ? [{ path, before: b, after: after.get(abs) ?? null }] : [];
  });
}

/**
 * The plan that restores every file of an entry byte for byte. Each file must still hold exactly
 * the bytes the edit wrote; otherwise the plan fails with edit_conflict and nothing is written.
 */
export function undoPlan(entry: JournalEntry): EditPlan {
  return entry.files.map((f) => ({ kind: "restore", path: f.path, bytes: f.before, expected: f.after }));
}

function sizeOf(files: readonly JournalFile[]): number {
  return files.reduce((n, f) => n + (f.before?.length ?? 0) + (f.after?.length ?? 0), 0);
}

function fromBase64(s: string | null): Buffer | null {
  return s === null ? null : Buffer.from(s, "base64");
}

function isPersisted(v: unknown): v is PersistedEntry {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  const okBytes = (b: unknown) => b === null || (typeof b === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(b));
  return (
    o.version === 1 &&
    typeof o.id === "string" &&
    /^e[0-9a-f]+$/.test(o.id) &&
    typeof o.tool === "string" &&
    typeof o.undone === "boolean" &&
    (o.reverses === undefined || typeof o.reverses === "string") &&
    Array.isArray(o.files) &&
    o.files.every(
      (f: unknown) =>
        typeof f === "object" &&
        f !== null &&
        typeof (f as Record<string, unknown>).path === "string" &&
        okBytes((f as Record<string, unknown>).before) &&
        okBytes((f as Record<string, unknown>).after),
    )
  );
}
