/**
 * The persistent symbol index: a file's document symbols (after the adapter's clean-up) stored
 * under `.scalpel/cache/symbols/<server key>/`, one JSON file per source file, keyed by the hash of
 * the file's text. The server key covers scalpel's version (the adapters' clean-up is part of the
 * answer), the server's name and version from `initialize`, and its launch settings, so a different
 * server or configuration never reads another's symbols.
 *
 * An entry is only ever used for exactly the text it was built from, so it cannot be stale: a file
 * changed while scalpel was down, or by the file watcher's report, or by scalpel's own writes hashes
 * differently and is asked for again. Crash-safe: each entry is written to a temp file and renamed
 * (text/write.ts); a torn or edited entry fails its checksum and is rebuilt. Two processes on one
 * project may write the same entry: the rename is atomic, so the last writer wins with a whole file.
 * Read-only projects keep the index in memory only (nothing is written into the project).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { Logger } from "../log.js";
import type { Sandbox } from "../security/sandbox.js";
import { writeFileAtomic } from "../text/write.js";
import { version as scalpelVersion } from "../version.js";

export const symbolIndexDir = ".scalpel/cache/symbols";

/** Bumped when the stored shape changes: older entries are then simply not found. */
const formatVersion = 1;

interface StoredEntry {
  v: number;
  rel: string;
  hash: string;
  symbols: DocumentSymbol[];
  /** sha256 of the JSON of { rel, hash, symbols }: a torn or edited file fails it. */
  sum: string;
}

/** What the index did since activation: the e2e tests count server requests with it. */
export interface IndexStats {
  /** Files whose symbols came from the index, without asking a server. */
  reused: number;
  /** Files whose symbols had to be requested (`textDocument/documentSymbol`). */
  requested: number;
  /** Entries found unreadable or failing their checksum (rebuilt on the spot). */
  corrupt: number;
}

/** What identifies a server's answers: its adapter, reported name and version, and settings. */
export interface ServerIdentity {
  adapter: string;
  serverInfo?: { name: string; version?: string } | undefined;
  settings: unknown;
}

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function serverKey(id: ServerIdentity): string {
  const basis = JSON.stringify([
    scalpelVersion,
    formatVersion,
    id.adapter,
    id.serverInfo ?? null,
    id.settings,
  ]);
  return `${id.adapter.replace(/[^a-z0-9-]/gi, "_")}-${createHash("sha256").update(basis).digest("hex").slice(0, 16)}`;
}

/** What the key needs of a running session (lsp/session.ts). */
export interface IndexedSession {
  serverInfo: ServerIdentity["serverInfo"];
  spec: { launch: unknown; initializationOptions?: unknown; didChangeConfigurationSettings?: unknown };
}

const keys = new WeakMap<IndexedSession, string>();

function keyOf(session: IndexedSession, adapter: string): string {
  let key = keys.get(session);
  if (key === undefined) {
    const { launch, initializationOptions, didChangeConfigurationSettings } = session.spec;
    key = serverKey({
      adapter,
      serverInfo: session.serverInfo,
      settings: [launch, initializationOptions ?? null, didChangeConfigurationSettings ?? null],
    });
    keys.set(session, key);
  }
  return key;
}

function checksum(rel: string, hash: string, symbols: unknown): string {
  return createHash("sha256").update(JSON.stringify({ rel, hash, symbols })).digest("hex");
}

export class SymbolIndexStore {
  readonly stats: IndexStats = { reused: 0, requested: 0, corrupt: 0 };
  /** Entries of this session by `<key>/<rel>`: reads after the first skip the disk. */
  private readonly memory = new Map<string, { hash: string; symbols: DocumentSymbol[] }>();
  private folderReady = new Map<string, Promise<string | null>>();
  private readonly pending = new Map<string, Promise<DocumentSymbol[]>>();

  constructor(
    private readonly sandbox: Sandbox,
    private readonly persist: boolean,
    private readonly log?: Logger,
  ) {}

  /**
   * A file's symbols for exactly `text`: from the index when it holds them for this server, else
   * from `ask` (the server's `textDocument/documentSymbol`, cleaned up), which is then recorded.
   */
  async symbols(
    session: IndexedSession,
    adapter: string,
    rel: string,
    text: string,
    ask: () => Promise<DocumentSymbol[]>,
  ): Promise<DocumentSymbol[]> {
    const key = keyOf(session, adapter);
    const hash = textHash(text);
    // The background build and a tool call asking for one file at once share one request.
    const id = `${key}/${rel}/${hash}`;
    const pending = this.pending.get(id);
    if (pending) return pending;
    const answer = (async () => {
      const stored = await this.get(key, rel, hash);
      if (stored) {
        this.stats.reused++;
        return stored;
      }
      const fresh = await ask();
      this.stats.requested++;
      void this.put(key, rel, hash, fresh);
      return fresh;
    })();
    this.pending.set(id, answer);
    try {
      return await answer;
    } finally {
      this.pending.delete(id);
    }
  }

  /** `rel`'s symbols for exactly this text when the index holds them (no server asked), else null. */
  async lookup(
    session: IndexedSession,
    adapter: string,
    rel: string,
    text: string,
  ): Promise<DocumentSymbol[] | null> {
    const stored = await this.get(keyOf(session, adapter), rel, textHash(text));
    if (stored) this.stats.reused++;
    return stored;
  }

  /** The stored symbols of `rel` for exactly this text hash, or null (missing, stale or corrupt). */
  async get(key: string, rel: string, hash: string): Promise<DocumentSymbol[] | null> {
    const mem = this.memory.get(`${key}/${rel}`);
    if (mem) return mem.hash === hash ? mem.symbols : null;
    if (!this.persist) return null;
    const dir = await this.folder(key, false);
    if (dir === null) return null;
    let raw: string;
    try {
      raw = await readFile(join(dir, entryName(rel)), "utf8");
    } catch {
      return null;
    }
    let entry: StoredEntry | null = null;
    try {
      const parsed = JSON.parse(raw) as StoredEntry;
      if (
        parsed.v === formatVersion &&
        parsed.rel === rel &&
        Array.isArray(parsed.symbols) &&
        parsed.sum === checksum(parsed.rel, parsed.hash, parsed.symbols)
      )
        entry = parsed;
    } catch {
      entry = null;
    }
    if (entry === null) {
      this.stats.corrupt++;
      this.log?.warn(`symbol index entry of ${rel} is corrupt (checksum or format); rebuilding it`);
    }
    // Remembered either way (a corrupt entry as matching no text): the disk is read once per file.
    this.memory.set(`${key}/${rel}`, entry ?? { hash: "", symbols: [] });
    return entry !== null && entry.hash === hash ? entry.symbols : null;
  }

  /** Records a file's symbols; persisting happens in the background and never fails a call. */
  put(key: string, rel: string, hash: string, symbols: DocumentSymbol[]): Promise<void> {
    this.memory.set(`${key}/${rel}`, { hash, symbols });
    if (!this.persist) return Promise.resolve();
    return this.write(key, rel, hash, symbols).catch((e) =>
      this.log?.warn(
        `could not store the symbols of ${rel} in the index`,
        e instanceof Error ? e.message : e,
      ),
    );
  }

  private async write(key: string, rel: string, hash: string, symbols: DocumentSymbol[]): Promise<void> {
    const dir = await this.folder(key, true);
    if (dir === null) return;
    const body: StoredEntry = { v: formatVersion, rel, hash, symbols, sum: checksum(rel, hash, symbols) };
    await writeFileAtomic(join(dir, entryName(rel)), Buffer.from(JSON.stringify(body), "utf8"));
  }

  /**
   * The key's folder through the sandbox (a link planted at `.scalpel/cache` cannot send the index
   * outside the project), created with a `.gitignore` on first write.
   */
  private folder(key: string, create: boolean): Promise<string | null> {
    const known = this.folderReady.get(key);
    if (known) return known;
    const made = (async () => {
      let abs: string;
      try {
        abs = this.sandbox.resolve(`${symbolIndexDir}/${key}`, { kind: "dir" }).abs;
      } catch (e) {
        this.log?.warn("the symbol index folder is not usable; symbols are indexed for this session only", e);
        return null;
      }
      if (create) {
        await mkdir(abs, { recursive: true });
        await writeFile(join(abs, "..", "..", ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
      }
      return abs;
    })();
    // Only a created folder is remembered: a read before the first write must look again later.
    if (create) this.folderReady.set(key, made);
    return made;
  }
}

/** One entry per source file, named by its path's hash (paths may be long or hold any character). */
function entryName(rel: string): string {
  return `${createHash("sha1").update(rel).digest("hex")}.json`;
}
