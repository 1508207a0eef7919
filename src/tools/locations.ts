/**
 * Turning server locations into the contract's shapes: relative paths, 1-based lines, containing
 * symbols and snippets. Locations outside the project root are dropped, never shown; locations in
 * secret files are reported by place only (`SecretSite`), since the sandbox mints no path to read.
 */
import type { Location, LocationLink, Position } from "vscode-languageserver-protocol";
import { z } from "zod";
import { readTextFile, splitLines } from "../edits/text.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { SymbolNode } from "../symbols/tree.js";
import { cachedSymbols, fileSymbols } from "./symbol-access.js";

/** A location in a secret file: where it is, nothing of what is there. */
export const secretSiteSchema = z.object({
  relative_path: z.string(),
  line: z.number().int().describe("1-based"),
});
export type SecretSite = z.infer<typeof secretSiteSchema>;

export function secretSite(rel: string, loc: Location): SecretSite {
  return { relative_path: rel, line: loc.range.start.line + 1 };
}

export interface FileView {
  path: CheckedPath;
  lines: string[];
  /** null when no language server handles the file. */
  roots: SymbolNode[] | null;
}

export function normalizeLocations(
  raw: Location | Location[] | LocationLink[] | null | undefined,
): Location[] {
  if (!raw) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((l) => ("targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange } : l));
}

/** Loads each file once (text + symbols), for many locations in few files. */
export class FileViews {
  private readonly views = new Map<string, Promise<FileView>>();

  constructor(
    private readonly project: Project,
    private readonly signal?: AbortSignal,
  ) {}

  get(path: CheckedPath): Promise<FileView> {
    let v = this.views.get(path.abs);
    if (!v) {
      v = this.load(path);
      this.views.set(path.abs, v);
    }
    return v;
  }

  private async load(path: CheckedPath): Promise<FileView> {
    // Reference sites span many files: symbols cached for the same text spare a didOpen and a
    // documentSymbol round trip per file.
    const text = await readTextFile(path.abs, path.rel)
      .then((f) => f.text)
      .catch(() => null);
    const cached = text === null ? null : cachedSymbols(this.project, path.abs, text);
    if (text !== null && cached) return { path, lines: splitLines(text), roots: cached };
    if (this.project.pool.adapterForPath(path.abs) !== null) {
      try {
        const fs = await fileSymbols(this.project, path, this.signal, false);
        return { path, lines: splitLines(fs.doc.text), roots: fs.roots };
      } catch {
        // Fall through: a file the server cannot describe still gets a snippet.
      }
    }
    return { path, lines: splitLines(text ?? ""), roots: null };
  }
}

export function samePosition(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}
