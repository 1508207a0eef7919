import type { Hover, Position, SignatureHelp } from "vscode-languageserver-protocol";
import { z } from "zod";
import { AppError } from "../core/errors.js";
import { completenessOf } from "../lsp/completeness.js";
import { hoverText, plainMarkdown } from "../navigation/hover-text.js";
import { requireSupport, supports } from "../servers/support.js";
import { fileSymbols, resolveSymbol } from "../symbols/access.js";
import { containingSymbol, symbolAt } from "../symbols/tree.js";
import { allLines } from "../text/lines.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness } from "./kit/params.js";

export const getTypeInfoTool = defineTool({
  name: "get_type_info",
  title: "Get type info",
  description: "Hover: type, signature and docs of a symbol or of what is at line and column.",
  input: {
    relative_path: z.string(),
    name_path: z.string().optional().describe("or line and column"),
    line: z.number().int().min(1).optional(),
    column: z.number().int().min(1).optional(),
  },
  output: {
    relative_path: z.string(),
    line: z.number().int().describe("1-based line asked about"),
    column: z.number().int().describe("1-based column asked about"),
    symbol: z
      .string()
      .nullable()
      .describe("name path of the symbol at the position, or of the one holding it; null: top-level code"),
    type_info: z
      .string()
      .describe(
        "the server's hover as plain text: code (type, signature) then documentation; empty when it has none",
      ),
    signature: z
      .string()
      .optional()
      .describe(
        "inside a call's argument list: the called signature and its documentation, when the hover lacks it",
      ),
    ...completeness,
  },
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    let at: { file: Awaited<ReturnType<typeof fileSymbols>>; pos: Position; symbol: string | null };
    if (args.name_path !== undefined) {
      if (args.line !== undefined || args.column !== undefined) {
        throw new AppError("invalid_argument", "Give either name_path, or line and column, not both.");
      }
      const { file, node } = await resolveSymbol(
        project,
        args.relative_path,
        args.name_path,
        ctx.signal,
        true,
      );
      at = { file, pos: node.selectionRange.start, symbol: node.namePath };
    } else {
      if (args.line === undefined || args.column === undefined) {
        throw new AppError(
          "invalid_argument",
          "Give name_path, or both line and column (1-based) of the position to ask about.",
        );
      }
      const path = project.sandbox.resolve(args.relative_path, { mustExist: true, kind: "file" });
      const file = await fileSymbols(project, path, ctx.signal);
      const lines = allLines(file.doc.text);
      const text = lines[args.line - 1];
      if (text === undefined) {
        throw new AppError(
          "invalid_argument",
          `line ${args.line} is past the end of ${path.rel} (${lines.length} lines).`,
        );
      }
      if (args.column > text.length + 1) {
        throw new AppError(
          "invalid_argument",
          `column ${args.column} is past the end of line ${args.line} (${text.length} characters).`,
        );
      }
      const pos = { line: args.line - 1, character: args.column - 1 };
      const node = symbolAt(file.roots, pos);
      const inside =
        node && node.selectionRange.start.line === pos.line ? node : containingSymbol(file.roots, pos);
      at = { file, pos, symbol: inside?.namePath ?? null };
    }
    const { file, pos } = at;
    requireSupport(
      file.session,
      file.adapter.id,
      "hoverProvider",
      "get_type_info",
      "Use find_symbol with include_body to read the declaration instead.",
    );
    const params = { textDocument: { uri: file.doc.uri }, position: pos };
    const opts = { signal: ctx.signal };
    const hover = await file.session.request<Hover | null>("textDocument/hover", params, opts);
    const typeInfo = hoverText(hover);
    let signature: string | undefined;
    if (supports(file.session, "signatureHelpProvider")) {
      const help = await file.session.request<SignatureHelp | null>(
        "textDocument/signatureHelp",
        params,
        opts,
      );
      const sig = help?.signatures[help.activeSignature ?? 0] ?? help?.signatures[0];
      // Only where it adds something: on a name the hover already shows the signature.
      if (sig && !typeInfo.includes(sig.label)) {
        const doc =
          sig.documentation === undefined
            ? ""
            : typeof sig.documentation === "string"
              ? sig.documentation.trim()
              : plainMarkdown(sig.documentation.value);
        signature = doc ? `${sig.label}\n\n${doc}` : sig.label;
      }
    }
    return {
      relative_path: file.path.rel,
      line: pos.line + 1,
      column: pos.character + 1,
      symbol: at.symbol,
      type_info: typeInfo,
      ...(signature !== undefined ? { signature } : {}),
      ...completenessOf(file.session),
    };
  },
  render(r) {
    const where = `${r.relative_path}:${r.line}:${r.column}${r.symbol ? ` (${r.symbol})` : ""}`;
    const head = `${where}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    const body = r.type_info === "" ? "no type information at this position" : r.type_info;
    return [head, body, ...(r.signature ? ["signature:", r.signature] : [])].join("\n");
  },
});
