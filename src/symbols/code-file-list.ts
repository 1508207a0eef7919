/**
 * The project's code files as the last whole walk found them, kept while the servers' watchers
 * vouch that nothing was added or removed (a new file, a folder or an ignore file changing makes
 * the next query walk again).
 */
import { type CodeFilesHost, codeFilesUnder } from "../files/code-files.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { WatchState } from "./watch-state.js";

export class CodeFileList {
  private list: CheckedPath[] | null = null;
  private valid = false;

  constructor(
    private readonly host: CodeFilesHost,
    private readonly watch: WatchState,
    /** Told the whole list after each walk (rows of files it no longer holds may be pruned). */
    private readonly walked: (list: readonly CheckedPath[]) => void,
  ) {}

  /** The code files under `rel` (a folder, "" for all): from the last walk while the watcher vouches for it. */
  async under(rel: string, signal?: AbortSignal): Promise<CheckedPath[]> {
    const start = rel === "" || rel === "." ? "" : `${rel.replace(/\/+$/, "")}/`;
    const known = this.list && this.valid && this.watch.watchingAll();
    // A folder's files without a list to trust: its own walk, not the whole project's.
    if (!known && start !== "") return codeFilesUnder(this.host, rel, signal);
    if (!known || !this.list) {
      // Set before the walk: a change reported while it runs makes the next call walk again.
      this.valid = this.watch.watchingAll();
      this.list = await codeFilesUnder(this.host, "", signal);
      this.walked(this.list);
    }
    return start === "" ? [...this.list] : this.list.filter((f) => f.rel.startsWith(start));
  }

  /** A file left the disk. */
  remove(rel: string): void {
    this.valid = false;
    this.list = this.list?.filter((f) => f.rel !== rel) ?? null;
  }

  /** Something was added or a folder changed: walk again before the next answer. */
  invalidate(): void {
    this.valid = false;
  }
}
