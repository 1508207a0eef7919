import type { WorkspaceEdit } from "vscode-languageserver-protocol";
import { z } from "zod";
import { commitPlan } from "../commit/commit-plan.js";
import { AppError } from "../core/errors.js";
import type { EditPlan } from "../edits/plan.js";
import { workspaceEditToPlan } from "../edits/workspace-edit.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import { FileViews } from "../references/locations.js";
import { renameLeftovers } from "../references/rename-leftovers.js";
import {
  askPerBatch,
  outsideBatchSize,
  type ReferenceScope,
  referenceScope,
  type ScopeQuery,
} from "../references/scope.js";
import { siteTextCache } from "../references/site-text-cache.js";
import { placeOf } from "../references/sites.js";
import { resolveSymbol } from "../symbols/access.js";
import { lineStarts, offsetAt, readTextFile } from "../text/positions.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { definingFile, dryRun, namePath, showDiff, verify } from "./kit/params.js";

const identifier = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]*$/u;

/** A new name the language takes, that keeps the symbol's visibility unless the caller allows a change. */
function checkNewName(
  adapter: LanguageAdapter,
  oldName: string,
  namePath: string,
  newName: string,
  changeVisibility: boolean,
): void {
  if (!(adapter.identifier ?? identifier).test(newName)) {
    throw new AppError(
      "invalid_argument",
      `'${newName}' is not a valid identifier. Give just the new name, without its class or path.`,
    );
  }
  if (oldName === newName)
    throw new AppError("invalid_argument", `${namePath} is already called '${newName}'.`);
  const before = adapter.nameVisibility?.(oldName);
  const after = adapter.nameVisibility?.(newName);
  if (before !== after && !changeVisibility) {
    throw new AppError(
      "invalid_argument",
      `Renaming '${oldName}' to '${newName}' would change who may use it (${before} → ${after}); nothing was changed. Give a new name of the same kind, or pass change_visibility: true if that is intended.`,
    );
  }
}

/**
 * tsserver's rename carries no document versions. Each edited range must still hold the old name
 * on disk; the text read here is pinned so that a change between now and the write is refused
 * (edit_conflict) instead of being overwritten. The texts come as references read them — several
 * at once, and kept between calls while the watcher reports no change (site-text-cache.ts): read
 * one after another, the 1,000 files of a rename on the bench's 1k project took 140–540 ms. A
 * kept text that the disk no longer holds makes the write refuse (the writer compares the pinned
 * text with the disk under its lock), never overwrite. A dry run previews the kept texts as they are
 * (EditFileOp.known), without reading the files again.
 */
async function pinExpectedTexts(plan: EditPlan, oldName: string, views: FileViews): Promise<void> {
  const edited = plan.flatMap((op) => (op.kind === "edit" ? [op] : []));
  await views.readAhead(edited.map((op) => op.path));
  for (const op of edited) {
    // Unreadable: read it again for the reader's own error (missing, binary, too large).
    const site = await views.text(op.path);
    const text = site?.text ?? (await readTextFile(op.path.abs, op.path.rel)).text;
    const starts = lineStarts(text);
    for (const e of op.edits) {
      const current = text.slice(offsetAt(text, e.range.start, starts), offsetAt(text, e.range.end, starts));
      if (!current.includes(oldName) && current !== "") {
        throw new AppError(
          "edit_conflict",
          `${op.path.rel} changed since the language server last read it (line ${e.range.start.line + 1} no longer holds '${oldName}'). Nothing was written; call rename_symbol again.`,
        );
      }
    }
    op.expectedText = text;
    if (site?.format) op.known = { ...site.format, text };
  }
}

/** Files that mention the old name but were left out of the rename, said in the result. */
function uncheckedRenames(scope: ReferenceScope): string | undefined {
  const left = scope.outside.slice(outsideBatchSize).map((p) => p.rel);
  if (left.length === 0) return scope.unchecked;
  const listed = `${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`;
  const more = `${left.length} file${left.length === 1 ? "" : "s"} outside the symbol's project mention it and were not checked: ${listed}`;
  return scope.unchecked ? `${more}; ${scope.unchecked}` : more;
}

export const renameSymbolTool = defineTool({
  name: "rename_symbol",
  title: "Rename symbol",
  description:
    "Renames a symbol and its type-precise references project-wide. Use it instead of search-and-replace.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    new_name: z.string().min(1).describe("'#x' for a private member"),
    change_visibility: z.boolean().default(false).describe("allow #a → a, a Go name's case change"),
    dry_run: dryRun,
    verify,
    show_diff: showDiff,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  annotations: writes,
  async run(args, ctx) {
    const project = ctx.project;
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal, true);
    checkNewName(file.adapter, node.name, node.namePath, args.new_name, args.change_visibility);
    // The same files are renamed whatever earlier calls opened (tests, scripts outside every tsconfig).
    const sq: ScopeQuery = {
      project,
      session: file.session,
      adapter: file.adapter,
      file: { abs: file.path.abs, uri: file.doc.uri },
      name: node.name,
      signal: ctx.signal,
    };
    const scope = await referenceScope(sq);
    // One rename covers the files open at once; past one batch the rest are named, not renamed.
    const [edit] = await askPerBatch(sq, scope.outside.slice(0, outsideBatchSize), () =>
      file.session.request<WorkspaceEdit | null>(
        "textDocument/rename",
        { textDocument: { uri: file.doc.uri }, position: node.selectionRange.start, newName: args.new_name },
        { signal: ctx.signal },
      ),
    );
    if (!edit || (!edit.changes && !edit.documentChanges)) {
      throw new AppError(
        "invalid_argument",
        `The language server cannot rename ${node.namePath} (it may be declared in a library). Nothing was changed.`,
      );
    }
    const kept = siteTextCache(file.session);
    const plan = workspaceEditToPlan(edit, project.sandbox, placeOf(project.sandbox, kept));
    await pinExpectedTexts(plan, node.name, new FileViews(project, ctx.signal, kept));
    // A rename from a server that lost its worker may cover only some of the sites.
    file.session.assertHealthy("renamed");
    const result = await commitPlan(ctx, plan, args.dry_run, {
      tool: "rename_symbol",
      verify: args.verify,
      wide: true,
      echoDiff: args.show_diff,
      siteLines: args.show_diff,
      // Every site of the renamed symbol is in the plan, so its users are touched files already.
      changedSymbols: () => [],
    });
    const unchecked = uncheckedRenames(scope);
    if (unchecked) result.note = `${result.note ? `${result.note} ` : ""}Not renamed there: ${unchecked}.`;
    // A dry run over the budget is fitted by editOutput's `fit`, with the call that shows all of it.
    if (!result.applied) return result;
    const touched = plan.flatMap((op) => (op.kind === "rename" ? [op.to] : [op.path]));
    const { sites, total, modulePaths } = await renameLeftovers(project, touched, node.name, ctx.signal);
    if (modulePaths > 0) {
      result.note = `${result.note ? `${result.note} ` : ""}${modulePaths} import${modulePaths === 1 ? "" : "s"} keep${modulePaths === 1 ? "s" : ""} '${node.name}' in ${modulePaths === 1 ? "its" : "their"} module path (a file of that name, not renamed).`;
    }
    if (total > 0) {
      result.possible_missed_sites = sites;
      if (total > sites.length) {
        result.note = `${result.note ? `${result.note} ` : ""}The old name is still written in ${total} places; the first ${sites.length} are listed (search_for_pattern finds the rest).`;
      }
    }
    return result;
  },
  render: renderEditResult,
});
