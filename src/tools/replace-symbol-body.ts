import { replaceBodyEdit } from "../edits/symbol-sites.js";
import { defineTool } from "./kit/define.js";
import { symbolEditTool } from "./kit/symbol-edit-tool.js";

export const replaceSymbolBodyTool = defineTool(
  symbolEditTool({
    name: "replace_symbol_body",
    title: "Replace symbol",
    description:
      "Replaces a symbol's declaration (signature through end) with new code, found by name path, so you never have to reproduce the old text. The symbol's doc comments and attributes / decorators above it are kept, unless the new code begins with its own doc comment or attribute: then those are replaced too (find_symbol with include_body shows the whole declaration, docs included, and can be sent back edited). The body may be sent unindented: it is re-indented to the symbol's place, by its bracket structure when it has no indentation at all; line endings and BOM are kept. Use insert_after_symbol to add a new member, rename_symbol to rename, replace_content for edits smaller than a declaration.",
    bodyDescription:
      "The new declaration, signature included; start it with a doc comment or attribute only to replace the existing ones",
    edit: replaceBodyEdit,
    changesSymbol: true,
  }),
);
