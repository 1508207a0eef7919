/**
 * A hover's contents as plain text. Servers answer markdown (measured: tsserver, rust-analyzer and
 * gopls v0.23.0 put the signature in a ```typescript / ```rust / ```go fence, then documentation,
 * rust-analyzer and gopls with `---` rules between parts; gopls turns a Go doc comment's indented
 * code into an indented code block and its doc links into links to the declaring file); an agent
 * needs the code and the words, not the markup.
 */
import type { Hover, MarkedString, MarkupContent } from "vscode-languageserver-protocol";

function partText(part: MarkedString | MarkupContent): { text: string; markdown: boolean } {
  if (typeof part === "string") return { text: part, markdown: true };
  if ("kind" in part) return { text: part.value, markdown: part.kind === "markdown" };
  return { text: `\`\`\`${part.language}\n${part.value}\n\`\`\``, markdown: true };
}

/** An indented code block's line: a tab or four spaces (CommonMark). */
const indentedCode = /^(\t| {4})/;

/** Markdown to plain text: fenced and indented code kept verbatim, markup outside it removed. */
export function plainMarkdown(md: string): string {
  const out: string[] = [];
  let inFence = false;
  let inIndented = false;
  for (const line of md.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      // Code and the words around it stay apart: tsserver puts the doc right after the fence.
      inFence = !inFence;
      out.push("");
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    // An indented block starts after a blank line (it cannot interrupt a paragraph, so a list
    // item's indented continuation stays prose) and runs until a line that is not indented.
    if (indentedCode.test(line) && (inIndented || (out.at(-1) ?? "") === "")) {
      inIndented = true;
      out.push(line.replace(/\s+$/, ""));
      continue;
    }
    if (line.trim() !== "") inIndented = false;
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push("");
      continue;
    }
    out.push(
      line
        // Escaped characters are literal: kept aside so `\_x\_` is not read as emphasis.
        .replace(/\\([\\`*_{}[\]()#+\-.!<>|])/g, (_, c: string) => `\uE000${c.charCodeAt(0)}\uE001`)
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
        .replace(/(\*\*|__)(.+?)\1/g, "$2")
        .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, "$1$2")
        .replace(/`([^`]+)`/g, "$1")
        .replace(/\uE000(\d+)\uE001/g, (_, code: string) => String.fromCharCode(Number(code)))
        .replace(/&nbsp;/g, " ")
        .replace(/\s+$/, ""),
    );
  }
  // One blank line between parts, none at either end.
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export function hoverText(hover: Hover | null | undefined): string {
  if (!hover) return "";
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  return parts
    .map((p) => {
      const { text, markdown } = partText(p);
      return markdown ? plainMarkdown(text) : text.trim();
    })
    .filter((t) => t !== "")
    .join("\n\n");
}
