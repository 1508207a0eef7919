import { replaceBodyEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const replaceSymbolBodyTool = defineTool(
  symbolEditTool({
    name: "replace_symbol_body",
    title: "Replace symbol",
    description:
      "Replaces a symbol's whole declaration, signature included (its doc comment stays unless the new code has one).",
    edit: replaceBodyEdit,
    changesSymbol: true,
  }),
);
