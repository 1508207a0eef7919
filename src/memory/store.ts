/**
 * The markdown memory store: one `<name>.md` file per memory below the project's memory folder
 * (`memory_dir`, default `.scalpel/memories`). Names are checked lexically (`names.ts`), the folder
 * and every file go through the project's sandbox, and nothing below the folder may be a symbolic
 * link, so a memory can be neither read nor written anywhere but inside the folder.
 *
 * Writes are atomic (temp file + rename in the same directory): readers never see half a memory,
 * and two server processes writing the same memory give last-writer-wins, different memories both
 * land. Writes take the writer's per-file lock (`edits/file-locks`); `update` reads and writes under it.
 */
import { lstat, mkdir, readdir, rmdir, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { AppError, isAppError } from "../core/errors.js";
import { quoteUntrusted } from "../core/untrusted-text.js";
import { withFileLocks } from "../edits/file-locks.js";
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import { readTextFile, writeTextFileAtomic } from "../text/positions.js";
import { isValidMemoryName, normalizeMemoryName } from "./names.js";

/** Memories are notes for an agent's context window; anything larger is a mistake. */
export const maxMemoryBytes = 256 * 1024;

export interface MemoryInfo {
  name: string;
  bytes: number;
  /** Last modification, ISO 8601 (UTC). */
  updated: string;
}

export class MemoryStore {
  /**
   * @param sandbox the project's sandbox
   * @param dir the memory folder, project-relative (already checked to be relative by the config)
   */
  constructor(
    private readonly sandbox: Sandbox,
    readonly dir: string,
  ) {}

  /** The folder itself; throws when it resolves outside the project (e.g. a symlink). */
  private folder(): CheckedPath {
    return this.sandbox.resolve(this.dir, { kind: "dir" });
  }

  /** The file of a memory, after checking that no existing part below the folder is a symlink. */
  private async file(name: string): Promise<{ name: string; path: CheckedPath; folder: CheckedPath }> {
    const canonical = normalizeMemoryName(name);
    const folder = this.folder();
    const path = this.sandbox.resolve(`${folder.rel === "." ? "" : `${folder.rel}/`}${canonical}.md`);
    let current = folder.abs;
    for (const segment of `${canonical}.md`.split("/")) {
      current = join(current, segment);
      const st = await lstat(current).catch(() => null);
      if (st === null) break;
      if (st.isSymbolicLink()) {
        throw new AppError(
          "path_outside_project",
          `Memory '${canonical}' is not allowed: a symbolic link in the memory folder would lead out of it. Remove the link or use another name.`,
        );
      }
    }
    return { name: canonical, path, folder };
  }

  async write(name: string, content: string): Promise<{ name: string; bytes: number }> {
    const { path } = await this.file(name);
    // Under the writer's per-file lock, so a memory file edited through the file tools
    // (replace_content on `.scalpel/memories/x.md`) is never written over mid-edit.
    return withFileLocks([path.abs], () => this.writeLocked(name, content));
  }

  /**
   * Read, change and write one memory as one step under its file lock: two concurrent edits of
   * the same memory both land (a read-modify-write outside the lock would lose one).
   */
  async update(
    name: string,
    change: (content: string) => string | Promise<string>,
  ): Promise<{ name: string; bytes: number }> {
    const { path } = await this.file(name);
    return withFileLocks([path.abs], async () => {
      const { content } = await this.read(name);
      return this.writeLocked(name, await change(content));
    });
  }

  private async writeLocked(name: string, content: string): Promise<{ name: string; bytes: number }> {
    const bytes = Buffer.byteLength(content, "utf8");
    if (bytes > maxMemoryBytes) {
      throw new AppError(
        "too_large",
        `The memory is ${Math.ceil(bytes / 1024)} KiB; the limit is ${maxMemoryBytes / 1024} KiB. Keep memories short and factual, or split the content into several memories (e.g. 'topic/part-1', 'topic/part-2').`,
      );
    }
    const { name: canonical, path } = await this.file(name);
    const st = await stat(path.abs).catch(() => null);
    if (st?.isDirectory()) {
      throw new AppError(
        "invalid_argument",
        `'${canonical}.md' is a directory in the memory folder; choose another name.`,
      );
    }
    // A concurrent delete_memory may remove an emptied topic folder between mkdir and the write.
    // Another process replacing the same memory at that moment reads as a change meanwhile (its
    // rename unlinked the file our lstat had found: no name left, seen with two servers under
    // load); a memory write replaces the whole file, so it is simply tried again.
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(dirname(path.abs), { recursive: true });
        await writeTextFileAtomic(path.abs, content, { bom: false });
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENOENT" && attempt < 2) continue;
        if (isAppError(e) && e.code === "edit_conflict" && attempt < 5) continue;
        throw new AppError(
          "write_failed",
          `Memory '${canonical}' could not be written (${code ?? "error"}). Check that the memory folder '${this.dir}' is writable.`,
        );
      }
    }
    return { name: canonical, bytes };
  }

  async read(name: string): Promise<{ name: string; content: string }> {
    const { name: canonical, path } = await this.file(name);
    try {
      // The project's guarded reader: a memory swapped for a link to a secret or outside file by
      // another process is judged where it really leads, like any project file.
      return { name: canonical, content: (await readTextFile(path.abs, `memory '${canonical}'`)).text };
    } catch (e) {
      // A missing memory, or a folder where a memory's name points.
      if (isAppError(e) && (e.code === "file_not_found" || /is a directory/.test(e.message))) {
        throw await this.notFound(canonical);
      }
      throw e;
    }
  }

  async delete(name: string): Promise<{ name: string; deleted: true }> {
    const { name: canonical, path, folder } = await this.file(name);
    try {
      await unlink(path.abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") throw await this.notFound(canonical);
      throw new AppError("write_failed", `Memory '${canonical}' could not be deleted (${code ?? "error"}).`);
    }
    // Topic folders exist only for their memories: remove the ones this delete emptied.
    for (
      let dir = dirname(path.abs);
      dir !== folder.abs && dir.startsWith(folder.abs + sep);
      dir = dirname(dir)
    ) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty (or already gone): its parents are not empty either
      }
    }
    return { name: canonical, deleted: true };
  }

  /** Every memory, sorted by name. Files that are not valid memory names are left out. */
  async list(): Promise<MemoryInfo[]> {
    let folder: CheckedPath;
    try {
      folder = this.folder();
    } catch {
      return [];
    }
    const out: MemoryInfo[] = [];
    const visit = async (abs: string): Promise<void> => {
      const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith(".") || e.isSymbolicLink()) continue;
        const full = join(abs, e.name);
        if (e.isDirectory()) {
          await visit(full);
          continue;
        }
        if (!e.isFile() || !e.name.endsWith(".md")) continue;
        const name = relative(folder.abs, full).split(sep).join("/").slice(0, -3);
        if (!isValidMemoryName(name)) continue;
        // A concurrent delete can remove it between readdir and stat.
        const st = await stat(full).catch(() => null);
        if (st) out.push({ name, bytes: st.size, updated: st.mtime.toISOString() });
      }
    };
    await visit(folder.abs);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async names(): Promise<string[]> {
    return (await this.list()).map((m) => m.name);
  }

  private async notFound(name: string): Promise<AppError> {
    const names = await this.names();
    const listed =
      names.length === 0
        ? "There are no memories yet."
        : `Existing memories: ${names.slice(0, 30).join(", ")}${names.length > 30 ? ", …" : ""}.`;
    return new AppError(
      "memory_not_found",
      `No memory named '${name}'. ${listed} Use list_memories to see them.`,
    );
  }
}

/** The store of a project, in its configured memory folder. */
/**
 * A memory as it is handed to an agent: as written in a trusted project; quoted and labelled as
 * repository text in one the user has not trusted (a cloned repository may ship memories).
 */
export function handedOver(
  memory: { name: string; content: string },
  trusted: boolean,
): { name: string; content: string; untrusted?: true } {
  if (trusted) return memory;
  return { ...memory, content: quoteUntrusted(`memory '${memory.name}'`, memory.content), untrusted: true };
}

export function memoryStoreOf(project: { sandbox: Sandbox; config: { memory_dir: string } }): MemoryStore {
  return new MemoryStore(project.sandbox, project.config.memory_dir);
}
