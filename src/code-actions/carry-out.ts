/**
 * A chosen code action as an edit plan: resolved lazily (`codeAction/resolve`), its edit and its
 * command's edit (the adapter's own way for commands it knows, else the edits the server sends back
 * while running it), and, for `new_name`, the server's rename of the name it generated, asked on the
 * text the action leaves (an unsaved overlay; nothing is written here).
 */
import type { CodeAction, Command, Position, WorkspaceEdit } from "vscode-languageserver-protocol";
import { AppError } from "../core/errors.js";
import type { EditPlan } from "../edits/plan.js";
import { workspaceEditToPlan } from "../edits/workspace-edit.js";
import { isIdentifier } from "../languages/identifier.js";
import { pathToUri } from "../lsp/uri.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { applyTextEdits, readTextFile } from "../text/positions.js";
import { isCommand, type Offered, type OfferedAction } from "./offered.js";

export interface ActionPlan {
  plan: EditPlan;
  /** Where the name the action generated stands afterwards (an extracted function's call). */
  renameAt?: { uri: string; position: Position };
}

async function resolved(
  offered: Offered,
  action: OfferedAction,
  signal: AbortSignal,
): Promise<CodeAction | Command> {
  const raw = action.raw;
  if (isCommand(raw) || raw.edit || raw.data === undefined) return raw;
  const provider = offered.file.session.capabilities.codeActionProvider;
  if (typeof provider !== "object" || !provider.resolveProvider) return raw;
  return offered.file.session.request<CodeAction>("codeAction/resolve", raw, { signal });
}

/** The edits the action stands for, in the order they apply, and where to rename afterwards. */
async function actionEdits(
  offered: Offered,
  action: OfferedAction,
  signal: AbortSignal,
): Promise<{ edits: WorkspaceEdit[]; renameAt?: ActionPlan["renameAt"] }> {
  const { session, adapter } = offered.file;
  const ca = await resolved(offered, action, signal);
  const command = isCommand(ca) ? ca : ca.command;
  const edits: WorkspaceEdit[] = !isCommand(ca) && ca.edit ? [ca.edit] : [];
  if (!command) return { edits };
  const outcome = await adapter.codeActionCommand?.(session, command, { signal });
  if (outcome === undefined) {
    if (!adapter.editOnlyCommands?.includes(command.command)) {
      throw new AppError(
        "not_supported",
        `"${action.title}" was not applied: it runs the server's command '${command.command}', and scalpel runs only commands known to send their edit back to it (others may write files themselves or run the project's code, past its checks and undo). Nothing was written.`,
      );
    }
    const ran = await session.executeCollectingEdits(command.command, command.arguments ?? [], { signal });
    return { edits: [...edits, ...ran.edits] };
  }
  if (outcome.kind === "refused") {
    throw new AppError(
      "not_supported",
      `"${action.title}" was not applied: ${outcome.reason}. Nothing was written.`,
    );
  }
  if (outcome.kind === "none") return { edits };
  return { edits: [...edits, outcome.edit], ...(outcome.renameAt ? { renameAt: outcome.renameAt } : {}) };
}

const pathsOf = (plan: EditPlan) =>
  plan.flatMap((op) => (op.kind === "rename" ? [op.from, op.to] : [op.path])).map((p) => p.abs);

/**
 * Each edit was computed on the files as the server saw them, not on the result of the one before:
 * two that touch the same file cannot be applied one after the other.
 */
function joined(plans: EditPlan[], title: string): EditPlan {
  const seen = new Set<string>();
  for (const plan of plans) {
    const mine = new Set(pathsOf(plan));
    for (const p of mine) {
      if (seen.has(p)) {
        throw new AppError(
          "not_supported",
          `"${title}" changes one file both in its edit and in its command's edit; scalpel cannot combine them. Nothing was written.`,
        );
      }
    }
    for (const p of mine) seen.add(p);
  }
  return plans.flat();
}

/** Every file's first edit must land on the text the server computed it on (or fail edit_conflict). */
async function pinTexts(plan: EditPlan, offered: Offered): Promise<void> {
  const touched = new Set<string>();
  for (const op of plan) {
    if (op.kind === "edit" && !touched.has(op.path.abs)) {
      op.expectedText =
        op.path.abs === offered.file.path.abs
          ? offered.file.doc.text
          : (await readTextFile(op.path.abs, op.path.rel)).text;
    }
    for (const p of op.kind === "rename" ? [op.from, op.to] : [op.path]) touched.add(p.abs);
  }
}

/** The text `path` holds once `plan` is applied (null: the plan leaves no such file). */
async function textAfter(plan: EditPlan, path: CheckedPath): Promise<string | null> {
  let text: string | null = await readTextFile(path.abs, path.rel).then(
    (f) => f.text,
    () => null,
  );
  for (const op of plan) {
    if (op.kind === "create" && op.path.abs === path.abs)
      text = text === null || op.overwrite ? op.content : text;
    else if (op.kind === "edit" && op.path.abs === path.abs && text !== null)
      text = applyTextEdits(text, op.edits, path.rel);
    else if (op.kind === "delete" && op.path.abs === path.abs) text = null;
    else if (op.kind === "rename" && (op.from.abs === path.abs || op.to.abs === path.abs)) return null;
  }
  return text;
}

/** The server's rename of the generated name, asked on the text the action leaves; appended to the plan. */
async function renameGenerated(
  project: Project,
  offered: Offered,
  actionPlan: EditPlan,
  at: NonNullable<ActionPlan["renameAt"]>,
  newName: string,
  signal: AbortSignal,
): Promise<EditPlan> {
  const { session, adapter } = offered.file;
  if (!isIdentifier(adapter, newName)) {
    throw new AppError("invalid_argument", `'${newName}' is not a valid identifier; give just the new name.`);
  }
  const where = project.sandbox.fromUri(at.uri);
  const path = where.kind === "file" ? where.path : null;
  const text = path ? await textAfter(actionPlan, path) : null;
  if (!path || text === null) {
    throw new AppError(
      "not_supported",
      "The generated name stands in a file the action creates or moves; apply without new_name, then call rename_symbol.",
    );
  }
  const edit = await session.withOverlay(path.abs, text, () =>
    session.request<WorkspaceEdit | null>(
      "textDocument/rename",
      { textDocument: { uri: pathToUri(path.abs) }, position: at.position, newName },
      { signal },
    ),
  );
  if (!edit || (!edit.changes && !edit.documentChanges)) {
    throw new AppError(
      "not_supported",
      "The language server could not rename the generated name; apply without new_name, then call rename_symbol.",
    );
  }
  const renames = workspaceEditToPlan(edit, project.sandbox);
  // Other files' rename edits are computed on their disk text: they must be files the action left alone.
  const changed = new Set(pathsOf(actionPlan));
  const clash = renames.find(
    (op) => op.kind === "edit" && op.path.abs !== path.abs && changed.has(op.path.abs),
  );
  if (clash && clash.kind === "edit") {
    throw new AppError(
      "not_supported",
      `Renaming the generated name also changes ${clash.path.rel}, which the action edits too; apply without new_name, then call rename_symbol.`,
    );
  }
  return renames;
}

export async function actionPlan(
  project: Project,
  offered: Offered,
  action: OfferedAction,
  newName: string | undefined,
  signal: AbortSignal,
): Promise<EditPlan> {
  const { edits, renameAt } = await actionEdits(offered, action, signal);
  const plan = joined(
    edits.map((e) => workspaceEditToPlan(e, project.sandbox)),
    action.title,
  );
  if (plan.length === 0) {
    throw new AppError(
      "not_supported",
      `"${action.title}" changes no file as the server answers it; nothing was written.`,
    );
  }
  await pinTexts(plan, offered);
  if (newName === undefined) return plan;
  if (!renameAt) {
    throw new AppError(
      "invalid_argument",
      `"${action.title}" generates no name to give new_name to; apply it without new_name (rename_symbol renames afterwards).`,
    );
  }
  return [...plan, ...(await renameGenerated(project, offered, plan, renameAt, newName, signal))];
}
