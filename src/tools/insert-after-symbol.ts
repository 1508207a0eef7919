import { insertAfterEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const insertAfterSymbolTool = defineTool(
  symbolEditTool({
    name: "insert_after_symbol",
    title: "Insert after symbol",
    description:
      "Inserts code after a symbol's declaration at its indentation (e.g. a new method after another).",
    edit: (site, _node, body) => insertAfterEdit(site, body),
  }),
);
