import { z } from "zod";
import { plural } from "../core/words.js";
import { isTestFile } from "../languages/test-files.js";
import { completenessOf } from "../lsp/completeness.js";
import type { Project } from "../project/project.js";
import {
  groupReferences,
  listable,
  referenceFileSchema,
  referenceUnits,
  renderGrouped,
  withOwnLines,
} from "../references/listing.js";
import { scopeAhead } from "../references/scope-ahead.js";
import { collectReferences, type Reference } from "../references/sites.js";
import { resolveSymbol } from "../symbols/access.js";
import { checkKinds } from "../symbols/kinds.js";
import { symbolLine, symbolLineSchema } from "../symbols/outline.js";
import { toSymbolResult } from "../symbols/result.js";
import { defineTool, readOnly } from "./kit/define.js";
import {
  completeness,
  definingFile,
  excludeTests,
  kinds,
  maxAnswerChars,
  namePath,
  offset,
} from "./kit/params.js";
import { projectFields, projectOutput } from "./kit/project-fields.js";

/** `exclude_tests`: drops the sites in the language's test files. */
function withoutTests(project: Project, refs: Reference[], exclude: boolean): Reference[] {
  return exclude ? refs.filter((r) => !isTestFile(project.pool, r.relative_path)) : refs;
}

export const findReferencingSymbolsTool = defineTool({
  name: "find_referencing_symbols",
  title: "Find references",
  description:
    "Every type-precise use of a symbol, by file: line, containing symbol, code. Use it before changing a symbol.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    include_kinds: kinds.describe("of the containing symbol"),
    exclude_kinds: kinds,
    context_lines: z.number().int().min(0).max(20).default(0),
    offset,
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
  },
  output: {
    symbol: symbolLineSchema,
    files: z
      .array(referenceFileSchema)
      .describe(
        "the sites from offset on, by file; the envelope's total counts every site (imports included)",
      ),
    ...projectFields,
    ...completeness,
  },
  annotations: readOnly,
  // Context goes first (each snippet becomes its site's own line); then the wrapper lists whole
  // references up to the budget and names the next page, so every listed site keeps its code.
  // The hint never asks to lower context_lines: by then there is no context.
  narrowHint: "Or filter with include_kinds / exclude_kinds.",
  paging: { items: "files", noun: "reference", units: referenceUnits },
  shrink: [(r) => ({ ...r, files: r.files.map(withOwnLines) })],
  async run(args, ctx) {
    const project = ctx.project;
    const include = checkKinds(args.include_kinds, "include_kinds");
    const exclude = checkKinds(args.exclude_kinds, "exclude_kinds");
    // The scope needs no position: asked while the position waits for the file's symbols.
    const ahead = scopeAhead(project, args.relative_path, args.name_path, ctx.signal);
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal, true);
    const answer = await collectReferences({
      ...(ahead ? { ahead } : {}),
      project,
      session: file.session,
      adapter: file.adapter,
      uri: file.doc.uri,
      abs: file.path.abs,
      node,
      contextLines: args.context_lines,
      signal: ctx.signal,
    });
    const references = withoutTests(project, answer.references, args.exclude_tests).filter((r) => {
      const kind = r.containing_symbol?.kind;
      if (include.size > 0 && (kind === undefined || !include.has(kind))) return false;
      return kind === undefined || !exclude.has(kind);
    });
    return {
      symbol: symbolLine(toSymbolResult(node, undefined, { depth: 0 }), file.path.rel),
      files: groupReferences(listable(references.slice(args.offset), args.max_answer_chars)),
      total: references.length,
      ...projectOutput(answer.project),
      ...(answer.incompleteReason
        ? { complete: false, incomplete_reason: answer.incompleteReason }
        : completenessOf(file.session)),
    };
  },
  render(r) {
    const from = r.project === undefined ? "" : ` [project: ${r.project ?? "none"}]`;
    const head = `${plural(r.total ?? referenceUnits.count(r.files), "reference")} to ${r.symbol}${from}${r.complete ? "" : ` — incomplete: ${r.incomplete_reason}`}${r.project_note ? `\n(${r.project_note})` : ""}`;
    return [head, ...renderGrouped(r.files)].join("\n");
  },
});
