import { z } from "zod";
import { dryRun } from "./common.js";
import { editResultShape, renderEditResult } from "./edit-result.js";
import { editSymbol } from "./edit-symbol.js";
import { replaceBodyEdit } from "./symbol-edits.js";
import { defineTool, writes } from "./tool.js";

export const replaceSymbolBodyTool = defineTool({
  name: "replace_symbol_body",
  title: "Replace symbol",
  description:
    "Replaces a symbol's whole declaration (signature included) with new code, found by name path, so you never have to reproduce the old text. The body may be sent unindented: it is re-indented to the symbol's place; line endings and BOM are kept. Use insert_after_symbol to add a new member, rename_symbol to rename, replace_content for edits smaller than a declaration.",
  input: {
    name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
    relative_path: z.string().describe("The file that defines the symbol"),
    body: z.string().describe("The complete new declaration, signature included"),
    dry_run: dryRun,
  },
  output: editResultShape,
  annotations: writes,
  run: (args, ctx) => editSymbol(ctx, args, (site, node) => replaceBodyEdit(site, node, args.body)),
  render: renderEditResult,
});
