/**
 * Turning server locations into the contract's shapes: relative paths, 1-based lines, containing
 * symbols and snippets. Locations outside the project root are dropped, never shown; locations in
 * secret files are reported by place only (`SecretSite`), since the sandbox mints no path to read.
 */
import type { Location, LocationLink, Position } from "vscode-languageserver-protocol";
import { z } from "zod";
import { readTextFile, splitLines } from "../edits/text.js";
import type { Project } from "../project/project.js";
import type { SiteText, SiteTextCache } from "../project/site-text-cache.js";
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
/** Site files read at once by `readAhead`: enough to keep the thread pool busy, few descriptors. */
const readAheadWidth = 8;

export class FileViews {
  private readonly views = new Map<string, Promise<FileView>>();
  private readonly texts = new Map<string, Promise<SiteText | null>>();

  /** `kept`: texts kept between calls (the many site files of references). */
  constructor(
    private readonly project: Project,
    private readonly signal?: AbortSignal,
    private readonly kept?: SiteTextCache,
  ) {}

  get(path: CheckedPath): Promise<FileView> {
    let v = this.views.get(path.abs);
    if (!v) {
      v = this.load(path);
      this.views.set(path.abs, v);
    }
    return v;
  }

  /**
   * Reads the files' texts ahead, several at once. Each guarded read is about six thread-pool round
   * trips (open, stat, the descriptor's real path, read, close): one file after another, the 300
   * site files of the bench fixture took 40–130 ms of a warm find_referencing_symbols.
   */
  async readAhead(paths: readonly CheckedPath[]): Promise<void> {
    const queue = paths.filter((p) => !this.views.has(p.abs) && !this.texts.has(p.abs));
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) await this.text(p);
    };
    await Promise.all(Array.from({ length: Math.min(readAheadWidth, queue.length) }, worker));
  }

  private text(path: CheckedPath): Promise<SiteText | null> {
    let t = this.texts.get(path.abs);
    if (!t) {
      const kept = this.kept?.get(path.abs);
      const mark = this.kept?.mark;
      t = kept
        ? Promise.resolve(kept)
        : readTextFile(path.abs, path.rel).then(
            (f) => {
              const read = { text: f.text, lines: splitLines(f.text) };
              if (mark !== undefined) this.kept?.keep(mark, path.abs, read);
              return read;
            },
            () => null,
          );
      this.texts.set(path.abs, t);
    }
    return t;
  }

  private async load(path: CheckedPath): Promise<FileView> {
    // Reference sites span many files: symbols cached for the same text spare a didOpen and a
    // documentSymbol round trip per file.
    const site = await this.text(path);
    this.texts.delete(path.abs);
    const cached = site ? cachedSymbols(this.project, path.abs, site.text) : null;
    if (site && cached) return { path, lines: site.lines, roots: cached };
    if (this.project.pool.adapterForPath(path.abs) !== null) {
      try {
        const fs = await fileSymbols(this.project, path, this.signal, false);
        return { path, lines: splitLines(fs.doc.text), roots: fs.roots };
      } catch {
        // Fall through: a file the server cannot describe still gets a snippet.
      }
    }
    return { path, lines: site?.lines ?? splitLines(""), roots: null };
  }
}

export function samePosition(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}
