import { insertBeforeEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const insertBeforeSymbolTool = defineTool(
  symbolEditTool({
    name: "insert_before_symbol",
    title: "Insert before symbol",
    description:
      "Inserts code just before a symbol's declaration, above its doc comments and attributes / decorators, at the symbol's indentation — e.g. a new function before another, or an import before the first symbol of a file. Use insert_after_symbol to append a member after an existing one.",
    bodyDescription: "The code to insert (may be unindented)",
    edit: (site, _node, body) => insertBeforeEdit(site, body),
  }),
);
