/**
 * An edit plan: what a tool or a language server wants changed, as operations on checked paths.
 * Symbol edits, text replacement and server `WorkspaceEdit`s all become a plan, and only
 * `applyPlan` turns a plan into writes.
 */
import type { CheckedPath } from "../security/sandbox.js";
import type { TextEdit } from "../text/positions.js";
import type { TextFile } from "../text/read.js";

/** A file as a watched cache of its texts holds it (text and format, not its bytes). */
export type KnownFile = Omit<TextFile, "bytes">;

export interface EditFileOp {
  kind: "edit";
  path: CheckedPath;
  /** Computed against one text (LSP semantics); new text gets the file's line endings. */
  edits: TextEdit[];
  /**
   * The text (decoded, BOM stripped) the edits were computed against; if the file differs now →
   * edit_conflict with `details.reason === "stale"` (the caller may recompute on the new text).
   */
  expectedText?: string;
  /**
   * The file as the texts kept between calls hold it (while the watcher reports no change), its
   * text `expectedText`: a dry run previews it without reading the disk again. An applied edit
   * reads the disk under its lock whatever this says.
   */
  known?: KnownFile;
}

export interface CreateFileOp {
  kind: "create";
  path: CheckedPath;
  content: string;
  overwrite: boolean;
  /** LSP `ignoreIfExists`: an existing file is left alone instead of being an error. */
  ignoreIfExists?: boolean;
}

export interface DeleteFileOp {
  kind: "delete";
  path: CheckedPath;
  /** LSP `ignoreIfNotExists`. */
  ignoreIfNotExists?: boolean;
  /** The text (BOM stripped) the file must still hold; otherwise → edit_conflict. */
  expectedText?: string;
}

export interface RenameFileOp {
  kind: "rename";
  from: CheckedPath;
  to: CheckedPath;
  overwrite: boolean;
  /** LSP `ignoreIfExists`: an existing target makes the rename a no-op. */
  ignoreIfExists?: boolean;
}

/**
 * Puts exact bytes back (undo): the file must hold exactly `expected` (null = must not exist),
 * otherwise → edit_conflict. `bytes` null deletes the file. Bytes, not text, so every encoding,
 * BOM and line ending comes back as it was.
 */
export interface RestoreFileOp {
  kind: "restore";
  path: CheckedPath;
  bytes: Buffer | null;
  expected: Buffer | null;
}

export type EditOp = EditFileOp | CreateFileOp | DeleteFileOp | RenameFileOp | RestoreFileOp;

/** Operations apply in order, each to the result of the ones before (as in `documentChanges`). */
export type EditPlan = EditOp[];
