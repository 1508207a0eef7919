import type { Location, LocationLink } from "vscode-languageserver-protocol";
import { z } from "zod";
import { AppError } from "../core/errors.js";
import { completenessOf } from "../lsp/completeness.js";
import {
  FileViews,
  normalizeLocations,
  type SecretSite,
  secretSite,
  secretSiteSchema,
} from "../references/locations.js";
import { fileSymbols } from "../symbols/access.js";
import { renderSymbol } from "../symbols/render.js";
import { type SymbolResult, symbolSchema, toSymbolResult } from "../symbols/result.js";
import { symbolAt } from "../symbols/tree.js";
import { splitLines } from "../text/positions.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness } from "./kit/params.js";

/** 0-based UTF-16 column of the n-th whole-word occurrence of `identifier` in `line`, or -1. */
function identifierColumn(line: string, identifier: string, occurrence: number): number {
  const escaped = identifier.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, "gu");
  let n = 0;
  for (const m of line.matchAll(re)) {
    n++;
    if (n === occurrence) return m.index;
  }
  return -1;
}

export const findDeclarationTool = defineTool({
  name: "find_declaration",
  title: "Go to declaration",
  description: "Go to definition of the identifier at a line.",
  input: {
    relative_path: z.string().describe("file of the usage"),
    line: z.number().int().min(1),
    identifier: z.string().min(1).describe("its text on that line"),
    occurrence: z.number().int().min(1).default(1).describe("if repeated on the line"),
  },
  output: {
    declaration: symbolSchema.nullable(),
    secret_site: secretSiteSchema
      .optional()
      .describe("set when the declaration is in a secret file: only its place is shown"),
    ...completeness,
  },
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const path = project.sandbox.resolve(args.relative_path, { mustExist: true, kind: "file" });
    const file = await fileSymbols(project, path, ctx.signal);
    const lines = splitLines(file.doc.text);
    const text = lines[args.line - 1];
    if (text === undefined) {
      throw new AppError(
        "invalid_argument",
        `${path.rel} has ${lines.length} lines; line ${args.line} does not exist.`,
      );
    }
    const column = identifierColumn(text, args.identifier, args.occurrence);
    if (column < 0) {
      throw new AppError(
        "symbol_not_found",
        `'${args.identifier}' does not occur${args.occurrence > 1 ? ` ${args.occurrence} times` : ""} as a whole word on line ${args.line} of ${path.rel}: "${text.trim().slice(0, 120)}". Check the line number with read_file.`,
      );
    }
    const raw = await file.session.request<Location | Location[] | LocationLink[] | null>(
      "textDocument/definition",
      { textDocument: { uri: file.doc.uri }, position: { line: args.line - 1, character: column } },
      { signal: ctx.signal },
    );
    const views = new FileViews(project, ctx.signal);
    let declaration: SymbolResult | null = null;
    let secret: SecretSite | undefined;
    for (const loc of normalizeLocations(raw)) {
      const where = project.sandbox.fromUri(loc.uri);
      if (where.kind === "outside") continue;
      if (where.kind === "secret") {
        secret ??= secretSite(where.rel, loc);
        continue;
      }
      const target = where.path;
      const view = await views.get(target);
      const node = view.roots ? symbolAt(view.roots, loc.range.start) : null;
      if (node) {
        declaration = toSymbolResult(node, target.rel, { depth: 0 });
        break;
      }
    }
    if (declaration === null && secret) {
      return { declaration, secret_site: secret, ...completenessOf(file.session) };
    }
    return { declaration, ...completenessOf(file.session) };
  },
  render(r) {
    if (r.declaration) return renderSymbol(r.declaration, "");
    if (r.secret_site) {
      return `declared in a secret file: ${r.secret_site.relative_path}:${r.secret_site.line} (content not shown)`;
    }
    return "no declaration inside the project (it may come from a library)";
  },
});
