import { z } from "zod";
import { dryRun } from "./common.js";
import { editResultShape, renderEditResult } from "./edit-result.js";
import { editSymbol } from "./edit-symbol.js";
import { insertAfterEdit } from "./symbol-edits.js";
import { defineTool, writes } from "./tool.js";

export const insertAfterSymbolTool = defineTool({
  name: "insert_after_symbol",
  title: "Insert after symbol",
  description:
    "Inserts code right after a symbol's declaration, at the symbol's indentation — e.g. a new method after an existing one in the same class, or a new function after another. Use insert_before_symbol to put code in front of a symbol.",
  input: {
    name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
    relative_path: z.string().describe("The file that defines the symbol"),
    body: z.string().describe("The code to insert (may be unindented)"),
    dry_run: dryRun,
  },
  output: editResultShape,
  annotations: writes,
  run: (args, ctx) => editSymbol(ctx, args, (site) => insertAfterEdit(site, args.body)),
  render: renderEditResult,
});
