/**
 * Turning server locations into the contract's shapes: relative paths, 1-based lines, containing
 * symbols and snippets. Locations outside the project root are dropped, never shown; locations in
 * secret files are reported by place only (`SecretSite`), since the sandbox mints no path to read.
 */
import type { Location, LocationLink, Position } from "vscode-languageserver-protocol";
import { z } from "zod";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { cachedSymbols } from "../symbols/access.js";
import type { SymbolNode } from "../symbols/tree.js";
import { readTextFile, splitLines } from "../text/positions.js";
import type { SiteText, SiteTextCache } from "./site-text-cache.js";

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
  /**
   * The site-text cache's generation when the text `lines` were split from was read or found kept
   * (`SiteTextCache.mark`); undefined without that cache. What is worked out from the view may be
   * kept under it.
   */
  mark?: number | undefined;
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
export const readAheadWidth = 8;

export class FileViews {
  private readonly views = new Map<string, Promise<FileView>>();
  private readonly texts = new Map<string, Promise<SiteText | null>>();
  /** The kept texts' generation when each text was asked for (see FileView.mark). */
  private readonly marks = new Map<string, number>();

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

  /** Lets go of what this object holds for the file (its view, its text if not kept between calls). */
  forget(path: CheckedPath): void {
    this.views.delete(path.abs);
    this.texts.delete(path.abs);
    this.marks.delete(path.abs);
  }

  /** The file's text (kept between calls when it can be), null when it cannot be read. */
  text(path: CheckedPath): Promise<SiteText | null> {
    let t = this.texts.get(path.abs);
    if (!t) {
      const mark = this.kept?.mark;
      if (mark !== undefined) this.marks.set(path.abs, mark);
      const kept = this.kept?.get(path.abs);
      t = kept
        ? Promise.resolve(kept)
        : readTextFile(path.abs, path.rel).then(
            (f) => {
              // Lines are split per call, not kept: see SiteText.
              const { text, bytes: _bytes, ...format } = f;
              const read: SiteText = { text, format };
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
    // Reference sites span many files: symbols known for the same text spare a round trip per file.
    const site = await this.text(path);
    const mark = this.marks.get(path.abs);
    this.texts.delete(path.abs);
    this.marks.delete(path.abs);
    const cached = site ? cachedSymbols(this.project, path.abs, site.text) : null;
    if (site && cached) return { path, lines: splitLines(site.text), roots: cached, mark };
    if (this.project.pool.adapterForPath(path.abs) !== null) {
      try {
        // Symbols only (memory, the index, then the server): a site file is not opened in the
        // server when the index holds its text. Opened one by one (a didOpen, and past 40 open
        // documents a didClose, per file), the 5,000 site files of the generated 5k project took
        // 56 s of a first find_referencing_symbols on the native server.
        const fs = await this.project.symbols.file(path, this.signal);
        const same = site?.text === fs.text;
        return { path, lines: splitLines(fs.text), roots: fs.roots, mark: same ? mark : undefined };
      } catch {
        // Fall through: a file the server cannot describe still gets a snippet.
      }
    }
    return { path, lines: splitLines(site?.text ?? ""), roots: null, mark: site ? mark : undefined };
  }
}

export function samePosition(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}
