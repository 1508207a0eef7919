/**
 * How an adapter moves code with its imports (move_file, move_symbol): what the server answers
 * beyond what it announces, and the refactor that moves a declaration to another file, asked for
 * its edit alone (nothing written by the server).
 */
import type { Range, WorkspaceEdit } from "vscode-languageserver-protocol";
import type { RequestOptions } from "../lsp/types.js";
import type { CommandServer } from "./code-action-command.js";

export type MoveOutcome = { kind: "edit"; edit: WorkspaceEdit } | { kind: "refused"; reason: string };

export interface Moves {
  /**
   * The server answers `workspace/willRenameFiles` with the import updates of a file move although
   * its capabilities do not announce `workspace.fileOperations.willRename`.
   */
  answersWillRenameFiles?: boolean;
  /**
   * The edit that moves the top-level declaration at `range` of `file` (absolute path) to
   * `targetFile` (absolute; it may not exist yet), imports and uses included.
   */
  symbol?(
    server: CommandServer,
    move: { file: string; range: Range; targetFile: string },
    opts: RequestOptions,
  ): Promise<MoveOutcome>;
}
