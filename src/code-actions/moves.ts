/**
 * Moves as edit plans (move_file, move_symbol): the server computes the import updates, scalpel's
 * one writer makes every change, the file move itself included (a `rename` operation of the plan,
 * journaled like any edit). Files outside the moved file's project that mention it (tests, scripts
 * outside every tsconfig) are opened first, as for a rename (references/scope.ts): tsserver
 * updates only the projects it has loaded.
 */
import { basename, dirname, extname } from "node:path";
import type { WorkspaceEdit } from "vscode-languageserver-protocol";
import { AppError } from "../core/errors.js";
import { plural } from "../core/words.js";
import type { EditPlan } from "../edits/plan.js";
import { workspaceEditToPlan } from "../edits/workspace-edit.js";
import { pathToUri } from "../lsp/uri.js";
import type { Project } from "../project/project.js";
import { askPerBatch, outsideBatchSize, type ReferenceScope, referenceScope } from "../references/scope.js";
import type { CheckedPath } from "../security/sandbox.js";
import { serverName } from "../servers/support.js";
import { type FileSymbols, fileSymbols, resolveSymbol } from "../symbols/access.js";
import { readTextFile } from "../text/positions.js";

export interface MovePlan {
  plan: EditPlan;
  /** Set when importers may be left as they were: which, and why. */
  unchecked?: string;
}

/** A target that is new: inside the root, not secret (the sandbox refuses), not there yet. */
function newTarget(project: Project, rel: string, what: string): CheckedPath {
  const to = project.sandbox.resolve(rel);
  if (to.abs === project.sandbox.root) {
    throw new AppError("invalid_argument", `${what} must name a file, not the project root.`);
  }
  return to;
}

/** The name importers write for a module: its file name without extension, or its folder's for an index. */
function moduleName(abs: string): string {
  const name = basename(abs, extname(abs));
  return name === "index" ? basename(dirname(abs)) : name;
}

function scopeQuery(project: Project, file: FileSymbols, name: string, signal: AbortSignal) {
  return {
    project,
    session: file.session,
    adapter: file.adapter,
    file: { abs: file.path.abs, uri: file.doc.uri },
    name,
    signal,
  };
}

/** Files that mention the name but were left out (past one batch of outside files), in words. */
function uncheckedOf(scope: ReferenceScope): string | undefined {
  const left = scope.outside.slice(outsideBatchSize).map((p) => p.rel);
  if (left.length === 0) return scope.unchecked;
  const listed = `${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`;
  const more = `${left.length} file${left.length === 1 ? "" : "s"} outside the file's project mention it and were not updated: ${listed}`;
  return scope.unchecked ? `${more}; ${scope.unchecked}` : more;
}

/** Every edited file's edits must land on the text read now (or fail edit_conflict). */
async function pinTexts(plan: EditPlan): Promise<void> {
  const seen = new Set<string>();
  for (const op of plan) {
    if (op.kind === "edit" && !seen.has(op.path.abs)) {
      // A file the plan creates first has no text to pin (its create precedes it in `seen`).
      op.expectedText = (await readTextFile(op.path.abs, op.path.rel)).text;
    }
    for (const p of op.kind === "rename" ? [op.from, op.to] : [op.path]) seen.add(p.abs);
  }
}

export async function moveFilePlan(
  project: Project,
  fromRel: string,
  toRel: string,
  signal: AbortSignal,
): Promise<MovePlan> {
  const from = project.sandbox.resolve(fromRel, { mustExist: true, kind: "file" });
  const to = newTarget(project, toRel, "to_path");
  if (to.abs === from.abs) throw new AppError("invalid_argument", "to_path is the file's own path.");
  const taken = await readTextFile(to.abs, to.rel).then(
    () => true,
    (e: unknown) => !(e instanceof AppError && e.code === "file_not_found"),
  );
  if (taken) {
    throw new AppError(
      "file_exists",
      `'${to.rel}' already exists; nothing was moved. Choose a path that does not exist.`,
    );
  }
  const move: EditPlan = [{ kind: "rename", from, to, overwrite: false }];
  if (project.pool.adapterForPath(from.abs) === null) {
    return {
      plan: move,
      unchecked: `no language server reads ${from.rel}: nothing that names it was updated`,
    };
  }
  const file = await fileSymbols(project, from, signal);
  const { session, adapter } = file;
  const announced = session.capabilities.workspace?.fileOperations?.willRename !== undefined;
  if (!announced && !adapter.moves?.answersWillRenameFiles) {
    const server = serverName(session, adapter.id);
    return {
      plan: move,
      unchecked: `${server} offers no workspace/willRenameFiles: the file was moved as is, nothing that names it was updated`,
    };
  }
  const q = scopeQuery(project, file, moduleName(from.abs), signal);
  const scope = await referenceScope(q);
  const [edit] = await askPerBatch(q, scope.outside.slice(0, outsideBatchSize), () =>
    session.request<WorkspaceEdit | null>(
      "workspace/willRenameFiles",
      { files: [{ oldUri: pathToUri(from.abs), newUri: pathToUri(to.abs) }] },
      { signal },
    ),
  );
  // A server that lost its worker may answer with part of the importers.
  session.assertHealthy("moved");
  const edits = edit ? workspaceEditToPlan(edit, project.sandbox) : [];
  // The moved file's own imports are edits of the text it holds before the move, whichever path
  // the server names it by.
  const plan: EditPlan = edits.map((op) =>
    op.kind === "edit" && op.path.abs === to.abs ? { ...op, path: from } : op,
  );
  await pinTexts(plan);
  const unchecked = uncheckedOf(scope);
  return { plan: [...plan, ...move], ...(unchecked ? { unchecked } : {}) };
}

export async function moveSymbolPlan(
  project: Project,
  rel: string,
  namePath: string,
  toRel: string,
  signal: AbortSignal,
): Promise<MovePlan> {
  const { file, node } = await resolveSymbol(project, rel, namePath, signal, true);
  if (node.parent !== null) {
    throw new AppError(
      "invalid_argument",
      `${node.namePath} is not a top-level declaration; move_symbol moves only those (move its ${node.parent.namePath} instead).`,
    );
  }
  const to = newTarget(project, toRel, "to_file");
  if (to.abs === file.path.abs) throw new AppError("invalid_argument", "to_file is the symbol's own file.");
  const mover = file.adapter.moves?.symbol;
  if (!mover) {
    throw new AppError(
      "not_supported",
      `move_symbol is not supported by ${serverName(file.session, file.adapter.id)}: the server offers no refactor that moves a declaration to another file. Nothing was changed; move it by hand (replace_symbol_body / insert_after_symbol, then fix imports).`,
    );
  }
  // Asked for what the answer names as left out: the refactor reaches no file beyond its project.
  const scope = await referenceScope(scopeQuery(project, file, node.name, signal));
  const outcome = await mover(
    file.session,
    { file: file.path.abs, range: node.range, targetFile: to.abs },
    { signal },
  );
  if (outcome.kind === "refused") {
    throw new AppError(
      "not_supported",
      `${node.namePath} was not moved: ${outcome.reason}. Nothing was written.`,
    );
  }
  file.session.assertHealthy("moved");
  const plan = workspaceEditToPlan(outcome.edit, project.sandbox);
  await pinTexts(plan);
  // Measured (tsserver 5.9.3): "Move to file" edits the moved file's own project only; an importer
  // in another one (a script outside every tsconfig) is left as it was, even while open.
  const edited = new Set(plan.flatMap((op) => (op.kind === "edit" ? [op.path.abs] : [])));
  const left = scope.outside.filter((p) => !edited.has(p.abs)).map((p) => p.rel);
  const notUpdated = left.length
    ? `${plural(left.length, "file")} outside the symbol's project not updated (the refactor covers that project only; they mention ${node.name}): ${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`
    : undefined;
  const unchecked = [notUpdated, scope.unchecked].filter((x) => x !== undefined).join("; ");
  return { plan, ...(unchecked ? { unchecked } : {}) };
}
