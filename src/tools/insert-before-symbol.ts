import { z } from "zod";
import { dryRun } from "./common.js";
import { editResultShape, renderEditResult } from "./edit-result.js";
import { editSymbol } from "./edit-symbol.js";
import { insertBeforeEdit } from "./symbol-edits.js";
import { defineTool, writes } from "./tool.js";

export const insertBeforeSymbolTool = defineTool({
  name: "insert_before_symbol",
  title: "Insert before symbol",
  description:
    "Inserts code just before a symbol's declaration (and its doc comment), at the symbol's indentation — e.g. a new function before another, or an import before the first symbol of a file. Use insert_after_symbol to append a member after an existing one.",
  input: {
    name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
    relative_path: z.string().describe("The file that defines the symbol"),
    body: z.string().describe("The code to insert (may be unindented)"),
    dry_run: dryRun,
  },
  output: editResultShape,
  annotations: writes,
  run: (args, ctx) => editSymbol(ctx, args, (site) => insertBeforeEdit(site, args.body)),
  render: renderEditResult,
});
