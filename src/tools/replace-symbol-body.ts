import { symbolEditTool } from "./edit-symbol.js";
import { replaceBodyEdit } from "./symbol-edits.js";

export const replaceSymbolBodyTool = symbolEditTool({
  name: "replace_symbol_body",
  title: "Replace symbol",
  description:
    "Replaces a symbol's whole declaration (signature included) with new code, found by name path, so you never have to reproduce the old text. The body may be sent unindented: it is re-indented to the symbol's place; line endings and BOM are kept. Use insert_after_symbol to add a new member, rename_symbol to rename, replace_content for edits smaller than a declaration.",
  bodyDescription: "The complete new declaration, signature included",
  edit: replaceBodyEdit,
});
