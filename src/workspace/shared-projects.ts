/**
 * Projects shared by the sessions of one daemon (src/daemon.ts): one opened project (language
 * servers, symbol index, file watcher, journal) per key, reference-counted by the sessions using
 * it. The key holds the real root and what changes the servers (trust, project.yml), so a trusted
 * and an untrusted session of one root never share servers a repository's config could start.
 * File locks need nothing here: they are process-wide and keyed by real path (edits/file-locks.ts).
 *
 * A project whose last session let go stays open (its servers warm) for `keepWarmMs`: the next
 * session on it pays no cold start. Past that its servers are stopped and it is forgotten.
 */
import type { Logger } from "../core/log.js";
import type { Project } from "../project/project.js";

/** One session's hold on a shared project; `release` is idempotent. */
export interface ProjectShare {
  readonly project: Project;
  release(): void;
}

/** Where a workspace gets its projects when they are shared (the daemon); absent, it owns them. */
export interface ProjectSource {
  acquire(key: string, open: () => Project): ProjectShare;
}

interface Entry {
  project: Project;
  users: number;
  /** The keep-warm timer of a project nobody uses. */
  cooling: NodeJS.Timeout | undefined;
}

export interface SharedProjectInfo {
  name: string;
  sessions: number;
  servers: string[];
}

export class SharedProjects implements ProjectSource {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly keepWarmMs: number,
    private readonly log: Logger,
  ) {}

  acquire(key: string, open: () => Project): ProjectShare {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { project: open(), users: 0, cooling: undefined };
      this.entries.set(key, entry);
    }
    const held = entry;
    clearTimeout(held.cooling);
    held.cooling = undefined;
    held.users++;
    let released = false;
    return {
      project: held.project,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users === 0) this.cool(key, held);
      },
    };
  }

  private cool(key: string, entry: Entry): void {
    entry.cooling = setTimeout(() => {
      if (this.entries.get(key) !== entry || entry.users > 0) return;
      this.log.info(`no session used ${entry.project.name} for the keep-warm bound: stopping its servers`);
      void this.close(key, entry);
    }, this.keepWarmMs);
    entry.cooling.unref();
  }

  private async close(key: string, entry: Entry): Promise<void> {
    clearTimeout(entry.cooling);
    if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.project.secretGate.close();
    await entry.project.pool.shutdown().catch((e: unknown) => this.log.warn("server shutdown failed", e));
  }

  /** What `scalpel doctor` shows of each open project. */
  info(): SharedProjectInfo[] {
    return [...this.entries.values()].map((e) => ({
      name: e.project.name,
      sessions: e.users,
      servers: e.project.pool.startedLanguages(),
    }));
  }

  /** Stops every project's servers (the daemon is ending). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.entries].map(([key, entry]) => this.close(key, entry)));
  }
}
