/**
 * A language server's `WorkspaceEdit` → an edit plan. Every URI goes through the sandbox: one that
 * points outside the project refuses the whole edit, before anything is read or written.
 */
import type {
  AnnotatedTextEdit,
  CreateFile,
  DeleteFile,
  RenameFile,
  SnippetTextEdit,
  TextDocumentEdit,
  WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { AppError } from "../errors.js";
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import type { EditPlan } from "./plan.js";
import type { TextEdit } from "./text.js";

type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

export function workspaceEditToPlan(edit: WorkspaceEdit, sandbox: Sandbox): EditPlan {
  const plan: EditPlan = [];
  // LSP: when both are present, `documentChanges` is the authoritative form.
  if (edit.documentChanges && edit.documentChanges.length > 0) {
    for (const change of edit.documentChanges as DocumentChange[]) {
      if ("kind" in change) {
        switch (change.kind) {
          case "create":
            plan.push({
              kind: "create",
              path: checked(sandbox, change.uri),
              content: "",
              overwrite: change.options?.overwrite === true,
              ignoreIfExists: change.options?.ignoreIfExists === true,
            });
            break;
          case "delete":
            plan.push({
              kind: "delete",
              path: checked(sandbox, change.uri),
              ignoreIfNotExists: change.options?.ignoreIfNotExists === true,
            });
            break;
          case "rename":
            plan.push({
              kind: "rename",
              from: checked(sandbox, change.oldUri),
              to: checked(sandbox, change.newUri),
              overwrite: change.options?.overwrite === true,
              ignoreIfExists: change.options?.ignoreIfExists === true,
            });
            break;
          default:
            throw new AppError(
              "internal",
              `The language server sent an unknown file operation '${String((change as { kind: unknown }).kind)}'.`,
            );
        }
      } else {
        plan.push({
          kind: "edit",
          path: checked(sandbox, change.textDocument.uri),
          edits: change.edits.map(plainEdit),
        });
      }
    }
    return plan;
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    plan.push({ kind: "edit", path: checked(sandbox, uri), edits: edits.map(plainEdit) });
  }
  return plan;
}

function checked(sandbox: Sandbox, uri: string): CheckedPath {
  const path = sandbox.fromUri(uri);
  if (path === null) {
    throw new AppError(
      "path_outside_project",
      "The language server proposed a change to a file outside the project (or not a local file); nothing was changed. Check that the project root is the right one.",
    );
  }
  return path;
}

function plainEdit(e: TextEdit | AnnotatedTextEdit | SnippetTextEdit): TextEdit {
  if ("snippet" in e) return { range: e.range, newText: snippetToText(e.snippet.value) };
  return { range: e.range, newText: e.newText };
}

/** Placeholders keep their default text; tab stops and choices collapse (no editor to fill them). */
function snippetToText(snippet: string): string {
  return snippet
    .replace(/\$\{\d+\|([^,|}]*)[^}]*\|\}/g, "$1")
    .replace(/\$\{\d+:([^}]*)\}/g, "$1")
    .replace(/\$\{\d+\}|\$\d+/g, "")
    .replace(/\\([$}\\])/g, "$1");
}
