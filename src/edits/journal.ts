/**
 * The session's undo journal: what each applied edit changed, so it can be reversed as long as
 * nobody changed those files since. Kept in memory for the life of the server process.
 */
import { AppError } from "../errors.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { EditPlan } from "./plan.js";
import { stripBom } from "./text.js";

export interface JournalFile {
  path: CheckedPath;
  /** Exact content before the edit (BOM included); null = the edit created the file. */
  before: string | null;
  /** Exact content after the edit; null = the edit deleted the file. */
  after: string | null;
}

export interface JournalEntry {
  id: string;
  tool: string;
  files: JournalFile[];
  /** An undo's own entry: undoing it again is a redo, never the default. */
  reverses?: string;
  undone: boolean;
}

/** Old entries beyond this are forgotten: undo is for recent mistakes, not history. */
const maxEntries = 200;

export class EditJournal {
  private readonly entries: JournalEntry[] = [];

  record(entry: Omit<JournalEntry, "undone">): void {
    this.entries.push({ ...entry, undone: false });
    if (this.entries.length > maxEntries) this.entries.shift();
  }

  /** The entry to undo: the given id, or the latest edit that is not an undo and not undone. */
  pick(id: string | undefined): JournalEntry {
    if (id !== undefined) {
      const hit = this.entries.find((e) => e.id === id);
      if (!hit) {
        throw new AppError(
          "invalid_argument",
          `No edit '${id}' in this session's journal (it keeps the last ${maxEntries} edits of this server process).`,
        );
      }
      if (hit.undone) throw new AppError("invalid_argument", `Edit '${id}' was already undone.`);
      return hit;
    }
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (!e.undone && e.reverses === undefined) return e;
    }
    throw new AppError("invalid_argument", "There is no edit to undo in this session.");
  }

  markUndone(id: string): void {
    const e = this.entries.find((x) => x.id === id);
    if (e) e.undone = true;
  }
}

/**
 * The plan that restores every file of an entry. Each file must still hold exactly what the edit
 * wrote; otherwise the plan fails with edit_conflict and nothing is written.
 */
export function undoPlan(entry: JournalEntry): EditPlan {
  const plan: EditPlan = [];
  for (const f of entry.files) {
    if (f.after === null && f.before !== null) {
      plan.push({ kind: "create", path: f.path, content: stripBom(f.before), overwrite: false });
    } else if (f.before === null && f.after !== null) {
      plan.push({ kind: "delete", path: f.path, expectedText: stripBom(f.after) });
    } else if (f.before !== null && f.after !== null) {
      const after = stripBom(f.after);
      const lines = after.split("\n");
      const end = { line: lines.length - 1, character: lines[lines.length - 1]!.length };
      plan.push({
        kind: "edit",
        path: f.path,
        edits: [{ range: { start: { line: 0, character: 0 }, end }, newText: stripBom(f.before) }],
        expectedText: after,
      });
    }
  }
  return plan;
}
