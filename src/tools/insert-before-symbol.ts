import { insertBeforeEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const insertBeforeSymbolTool = defineTool(
  symbolEditTool({
    name: "insert_before_symbol",
    title: "Insert before symbol",
    description:
      "Inserts code before a symbol, above its doc comment, at its indentation (e.g. an import before the first).",
    edit: (site, _node, body) => insertBeforeEdit(site, body),
  }),
);
