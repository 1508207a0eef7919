/**
 * A hover's contents as plain text. Servers answer markdown (measured: tsserver and rust-analyzer
 * put the signature in a ```typescript / ```rust fence, then documentation, rust-analyzer with
 * `---` rules between parts); an agent needs the code and the words, not the markup.
 */
import type { Hover, MarkedString, MarkupContent } from "vscode-languageserver-protocol";

function partText(part: MarkedString | MarkupContent): { text: string; markdown: boolean } {
  if (typeof part === "string") return { text: part, markdown: true };
  if ("kind" in part) return { text: part.value, markdown: part.kind === "markdown" };
  return { text: `\`\`\`${part.language}\n${part.value}\n\`\`\``, markdown: true };
}

/** Markdown to plain text: fenced code kept verbatim, markup outside it removed. */
export function plainMarkdown(md: string): string {
  const out: string[] = [];
  let inFence = false;
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
