/**
 * Whether a reference site is inside an import statement (`import … from`, `export … from`, Rust
 * `use`, Python `from … import`): such sites only name the symbol, so find_referencing_symbols
 * counts them per file instead of quoting them. Read from the file's text because the language
 * servers report them as ordinary references (tsserver and rust-analyzer give them no kind).
 */

/** A line that starts an import-like statement. */
const opener =
  /^\s*(?:import\b|export\s+(?:type\s+)?(?:\*|\{)|use\s|pub(?:\([^)]*\))?\s+use\s|from\s+\S+\s+import\b)/;
/** A line in the middle of a multi-line import list: names, `as` aliases, commas, braces. */
const listLine = /^\s*(?:type\s+)?[\w$]*(?:\s+as\s+[\w$]+)?\s*,?\s*(?:\{\s*)?$/;
/** How far up a multi-line import list is followed. */
const maxListLines = 200;

export function isImportSite(lines: readonly string[], line0: number): boolean {
  for (let l = line0; l >= 0 && line0 - l <= maxListLines; l--) {
    const text = lines[l] ?? "";
    if (opener.test(text)) return exportHasFrom(lines, l);
    if (l !== line0 && !listLine.test(text)) return false;
    if (l === line0 && !listLine.test(text.replace(/^\s*[\w$\s,]*\}\s*from\s.*$/, ""))) return false;
  }
  return false;
}

/** `export { a }` without `from` exports a local: a use, not an import. */
function exportHasFrom(lines: readonly string[], start: number): boolean {
  if (!/^\s*export\b/.test(lines[start] ?? "")) return true;
  for (let l = start; l < lines.length && l - start <= maxListLines; l++) {
    const text = lines[l] ?? "";
    if (/\bfrom\s*["']/.test(text)) return true;
    if (/;\s*$|\}\s*$/.test(text) && !/\{\s*$/.test(text)) return false;
  }
  return false;
}
