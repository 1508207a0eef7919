/**
 * A language server's `WorkspaceEdit` → an edit plan. Every URI goes through the sandbox: one that
 * points outside the project, or at a secret file, refuses the whole edit before anything is read
 * or written (a dry run included: its diff would show the secret file).
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
import { AppError } from "../core/errors.js";
import { secretFileError } from "../security/refusals.js";
import type { CheckedPath, Located, Sandbox } from "../security/sandbox.js";
import type { TextEdit } from "../text/positions.js";
import type { EditPlan } from "./plan.js";

type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

/**
 * `locate`: where a URI points, as the sandbox told before (references' kept places, while nothing
 * under them changed): the sandbox's own check is a realpath and a stat a file, about 2 ms of each
 * rename_symbol dry run of 29 files on rxjs (profiler).
 */
export function workspaceEditToPlan(
  edit: WorkspaceEdit,
  sandbox: Sandbox,
  locate: (uri: string) => Located = (uri) => sandbox.fromUri(uri),
): EditPlan {
  const paths = checkAll(edit, locate);
  const checked = (uri: string): CheckedPath => paths.get(uri)!;
  const plan: EditPlan = [];
  // LSP: when both are present, `documentChanges` is the authoritative form.
  if (edit.documentChanges && edit.documentChanges.length > 0) {
    for (const change of edit.documentChanges as DocumentChange[]) {
      if ("kind" in change) {
        switch (change.kind) {
          case "create":
            plan.push({
              kind: "create",
              path: checked(change.uri),
              content: "",
              overwrite: change.options?.overwrite === true,
              ignoreIfExists: change.options?.ignoreIfExists === true,
            });
            break;
          case "delete":
            plan.push({
              kind: "delete",
              path: checked(change.uri),
              ignoreIfNotExists: change.options?.ignoreIfNotExists === true,
            });
            break;
          case "rename":
            plan.push({
              kind: "rename",
              from: checked(change.oldUri),
              to: checked(change.newUri),
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
          path: checked(change.textDocument.uri),
          edits: change.edits.map(plainEdit),
        });
      }
    }
    return plan;
  }
  // `changes` is a map: its order says nothing, and TypeScript 7's native server (Go, whose maps
  // iterate in random order) sent rxjs's 29-file rename in another order each time, so the files a
  // shortened dry run showed changed from call to call. By path, the same edit reads the same.
  const byPath = Object.entries(edit.changes ?? {})
    .map(([uri, edits]) => ({ path: checked(uri), edits }))
    .sort((a, b) => (a.path.rel < b.path.rel ? -1 : a.path.rel > b.path.rel ? 1 : 0));
  for (const { path, edits } of byPath) plan.push({ kind: "edit", path, edits: edits.map(plainEdit) });
  return plan;
}

/** The URIs the edit would touch, in the form that counts (see above). */
function urisOf(edit: WorkspaceEdit): string[] {
  if (edit.documentChanges && edit.documentChanges.length > 0) {
    return (edit.documentChanges as DocumentChange[]).flatMap((change) => {
      if (!("kind" in change)) return [change.textDocument.uri];
      return change.kind === "rename" ? [change.oldUri, change.newUri] : [change.uri];
    });
  }
  return Object.keys(edit.changes ?? {});
}

/**
 * Every URI through the gate before the plan exists: a file outside the project refuses the edit,
 * and so do secret files, all of them named in one refusal.
 */
function checkAll(edit: WorkspaceEdit, locate: (uri: string) => Located): Map<string, CheckedPath> {
  const paths = new Map<string, CheckedPath>();
  const secret = new Set<string>();
  for (const uri of urisOf(edit)) {
    const where = locate(uri);
    if (where.kind === "file") paths.set(uri, where.path);
    else if (where.kind === "secret") secret.add(where.file);
    else {
      throw new AppError(
        "path_outside_project",
        "The language server proposed a change to a file outside the project (or not a local file); nothing was changed. Check that the project root is the right one.",
      );
    }
  }
  if (secret.size > 0) {
    throw secretFileError(
      [...secret].sort(),
      `the language server's edit would change ${secret.size === 1 ? "it" : "them"}`,
    );
  }
  return paths;
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
