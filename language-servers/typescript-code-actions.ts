/**
 * The commands of typescript-language-server 5.3.0's code actions, carried out without letting
 * tsls write: measured in its `executeCommand`, `_typescript.applyRefactoring` creates every file
 * the refactor names on disk itself (`fs.ensureFile`, before any client could refuse), then sends
 * the edit by `workspace/applyEdit` and the rename position in a request of its own
 * (`_typescript.rename`). Asking tsserver's `getEditsForRefactor` through `typescript.tsserverRequest`
 * gives the same edits and the rename position, with no side effect.
 */
import type { TextDocumentEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import type { CodeActionCommand } from "../src/languages/code-action-command.js";
import { pathToUri } from "../src/lsp/uri.js";

interface TsLocation {
  line: number;
  offset: number;
}
interface FileCodeEdits {
  fileName: string;
  textChanges: Array<{ start: TsLocation; end: TsLocation; newText: string }>;
}
export interface RefactorBody {
  edits?: FileCodeEdits[];
  renameLocation?: TsLocation;
  renameFilename?: string;
  notApplicableReason?: string;
}

/**
 * tsserver's 1-based locations. Measured: the text of a new file ("Move to a new file") comes as an
 * insertion at line 0, offset 0 (tsserver has no line map for a file that does not exist yet).
 */
const position = (l: TsLocation) => ({ line: Math.max(0, l.line - 1), character: Math.max(0, l.offset - 1) });

/**
 * tsserver's edits as a WorkspaceEdit. Its protocol does not say which files are new ("Move to a
 * new file"): each edited file is created first unless it exists (`ignoreIfExists`), as tsls does.
 */
export function asWorkspaceEdit(edits: readonly FileCodeEdits[]): WorkspaceEdit {
  const documentChanges: WorkspaceEdit["documentChanges"] = [];
  for (const e of edits) {
    const uri = pathToUri(e.fileName);
    documentChanges.push({ kind: "create", uri, options: { ignoreIfExists: true } });
    const edit: TextDocumentEdit = {
      textDocument: { uri, version: null },
      edits: e.textChanges.map((c) => ({
        range: { start: position(c.start), end: position(c.end) },
        newText: c.newText,
      })),
    };
    documentChanges.push(edit);
  }
  return { documentChanges };
}

export const typescriptCodeActionCommand: CodeActionCommand = async (server, command, opts) => {
  const [first] = command.arguments ?? [];
  switch (command.command) {
    case "_typescript.applyRefactoring": {
      const res = await server.executeCommand<{ body?: RefactorBody } | null>(
        "typescript.tsserverRequest",
        ["getEditsForRefactor", first],
        opts,
      );
      const body = res?.body;
      if (!body) return { kind: "refused", reason: "tsserver gave no edit for this refactor" };
      if (body.notApplicableReason) return { kind: "refused", reason: body.notApplicableReason };
      const edit = asWorkspaceEdit(body.edits ?? []);
      const at = body.renameLocation;
      return body.renameFilename && at
        ? { kind: "edit", edit, renameAt: { uri: pathToUri(body.renameFilename), position: position(at) } }
        : { kind: "edit", edit };
    }
    // A quick fix's command runs tsserver's own follow-up commands (installing an @types package);
    // most fixes have none, and their edit is all of it.
    case "_typescript.applyCodeActionCommand": {
      const commands = (first as { action?: { commands?: unknown[] } } | undefined)?.action?.commands;
      if (!commands || commands.length === 0) return { kind: "none" };
      return {
        kind: "refused",
        reason:
          "this fix asks tsserver to run a command (such as installing a package), which scalpel does not do",
      };
    }
    // Fix all in file: its edit comes from codeAction/resolve (getCombinedCodeFix); the command
    // only runs the same follow-up commands as above, which scalpel does not run.
    case "_typescript.applyFixAllCodeAction":
      return { kind: "none" };
    default:
      return undefined;
  }
};
