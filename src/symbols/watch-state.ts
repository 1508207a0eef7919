/**
 * What the servers' file watchers vouch for: a table row is trusted without touching the disk only
 * while the watcher of its language's server covers its folder (it would have reported a change).
 */
import { dirname } from "node:path";
import type { LspSession } from "../lsp/session.js";

export class WatchState {
  private readonly sessions = new Map<string, LspSession>();
  private readonly listening = new WeakSet<LspSession>();

  constructor(
    private readonly root: string,
    private readonly onChange: (paths: readonly string[]) => void,
  ) {}

  /** Listens to the disk changes `session` reports (once per session). */
  attach(adapterId: string, session: LspSession): void {
    this.sessions.set(adapterId, session);
    if (this.listening.has(session)) return;
    this.listening.add(session);
    session.onDiskChange((paths) => this.onChange(paths));
  }

  /** Whether the watcher of the adapter's session would report a change to `abs` from now on. */
  watched(adapterId: string, abs: string): boolean {
    return this.sessions.get(adapterId)?.watches(dirname(abs)) === true;
  }

  /** Whether every server's watcher covers the whole tree (new files are then reported). */
  watchingAll(): boolean {
    const all = [...this.sessions.values()];
    return all.length > 0 && all.every((s) => s.watches(this.root));
  }

  /** Lets the watchers report what changed on disk before an answer relies on their silence. */
  async drain(): Promise<void> {
    for (const s of this.sessions.values()) {
      if (s.watches(this.root)) await s.refreshOpenDocuments().catch(() => {});
    }
  }
}
