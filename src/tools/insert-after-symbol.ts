import { insertAfterEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const insertAfterSymbolTool = defineTool(
  symbolEditTool({
    name: "insert_after_symbol",
    title: "Insert after symbol",
    description:
      "Inserts code right after a symbol's declaration, at the symbol's indentation — e.g. a new method after an existing one in the same class, or a new function after another. Use insert_before_symbol to put code in front of a symbol.",
    bodyDescription: "The code to insert (may be unindented)",
    edit: (site, _node, body) => insertAfterEdit(site, body),
  }),
);
