/**
 * The file watchers a server registered (`client/registerCapability` for
 * `workspace/didChangeWatchedFiles`), and which of them a change matches. Servers register relative
 * patterns (`{baseUri: <root>, pattern: "**\/*"}`) or plain globs (`**\/*.rs`, `<root>/**\/*.toml`).
 * A change is announced only when some registration covers both the path and the kind of change
 * (`WatchKind` bits).
 */
import picomatch from "picomatch";
import {
  FileChangeType,
  type FileSystemWatcher,
  type Registration,
  WatchKind,
} from "vscode-languageserver-protocol";
import { uriToPath } from "./uri.js";

const method = "workspace/didChangeWatchedFiles";

interface CompiledWatcher {
  /** Absolute base directory of a relative pattern; undefined for a plain glob string. */
  base: string | undefined;
  match: (path: string) => boolean;
  kind: number;
}

export class WatchRegistrations {
  private readonly byId = new Map<string, CompiledWatcher[]>();

  /** Takes the registrations this class handles; returns whether any was new. */
  register(registrations: readonly Registration[]): boolean {
    let added = false;
    for (const r of registrations) {
      if (r.method !== method) continue;
      const watchers = (r.registerOptions as { watchers?: FileSystemWatcher[] } | undefined)?.watchers ?? [];
      this.byId.set(r.id, watchers.flatMap(compile));
      added = true;
    }
    return added;
  }

  unregister(ids: readonly string[]): void {
    for (const id of ids) this.byId.delete(id);
  }

  get any(): boolean {
    return this.byId.size > 0;
  }

  /** Whether a change of `type` (FileChangeType) to the absolute `path` was asked for. */
  wants(path: string, type: FileChangeType): boolean {
    const bit =
      type === FileChangeType.Created
        ? WatchKind.Create
        : type === FileChangeType.Changed
          ? WatchKind.Change
          : WatchKind.Delete;
    const posix = path.split("\\").join("/");
    for (const list of this.byId.values()) {
      for (const w of list) {
        if ((w.kind & bit) === 0) continue;
        if (w.base === undefined) {
          if (w.match(posix)) return true;
          continue;
        }
        if (!posix.startsWith(`${w.base}/`)) continue;
        if (w.match(posix.slice(w.base.length + 1))) return true;
      }
    }
    return false;
  }
}

function compile(w: FileSystemWatcher): CompiledWatcher[] {
  const kind = w.kind ?? WatchKind.Create | WatchKind.Change | WatchKind.Delete;
  const glob = w.globPattern;
  // LSP globs: `*`, `**`, `?`, `[...]`, `{a,b}`; dot files are ordinary files to a server.
  const options = { dot: true };
  if (typeof glob === "string") {
    // A plain glob is matched against the whole path (both `<root>/**/*.rs` and `**/*.rs` are
    // sent); `**/` at the start must also match from the filesystem root.
    const isMatch = picomatch(glob, options);
    return [{ base: undefined, match: (p) => isMatch(p) || isMatch(p.replace(/^\//, "")), kind }];
  }
  const baseUri = typeof glob.baseUri === "string" ? glob.baseUri : glob.baseUri.uri;
  let base: string;
  try {
    base = uriToPath(baseUri).split("\\").join("/").replace(/\/+$/, "");
  } catch {
    return [];
  }
  return [{ base, match: picomatch(glob.pattern, options), kind }];
}
