/**
 * move_symbol under typescript-language-server 5.3.0: tsserver's "Move to file" refactor, asked
 * through `typescript.tsserverRequest` for its edit alone (tsls' own command would create the files
 * itself, see typescript-code-actions.ts). The target is passed as `interactiveRefactorArguments`,
 * as editors do after their file picker; it may be a file that does not exist yet.
 */
import type { Moves } from "../src/languages/moves.js";
import { asWorkspaceEdit, type RefactorBody } from "./typescript-code-actions.js";

const moveToFile = "Move to file";

export const tsserverMoves: Moves = {
  // tsls registers a willRenameFiles handler (tsserver's getEditsForFileRename over every loaded
  // project) but announces no fileOperations capability.
  answersWillRenameFiles: true,
  async symbol(server, move, opts) {
    const { start, end } = move.range;
    const res = await server.executeCommand<{ body?: RefactorBody } | null>(
      "typescript.tsserverRequest",
      [
        "getEditsForRefactor",
        {
          file: move.file,
          startLine: start.line + 1,
          startOffset: start.character + 1,
          endLine: end.line + 1,
          endOffset: end.character + 1,
          refactor: moveToFile,
          action: moveToFile,
          interactiveRefactorArguments: { targetFile: move.targetFile },
        },
      ],
      opts,
    );
    const body = res?.body;
    if (!body) return { kind: "refused", reason: "tsserver gave no edit for 'Move to file' there" };
    if (body.notApplicableReason) return { kind: "refused", reason: body.notApplicableReason };
    return { kind: "edit", edit: asWorkspaceEdit(body.edits ?? []) };
  },
};
