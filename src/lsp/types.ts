/**
 * The contract between the generic LSP client (`lsp/`) and the language adapters
 * (`language-servers/`). `lsp/` knows nothing about tools, projects or MCP.
 */
import type { ClientCapabilities, Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";

import type { LaunchCommand } from "../process/spawn.js";

export type { LaunchCommand };

/**
 * How the client decides the server has finished loading the project, from the signals the adapter
 * names. With no signal named the server is used at once. Every wait is bounded by `maxWaitMs`.
 */
export interface ReadinessRule {
  /**
   * Requests wait while a `$/progress` the server began is open (progress not named here is still
   * shown in wait reports, it just does not hold requests).
   */
  waitForProgress?: boolean;
  /** A notification in which the server says whether it is busy. */
  status?: StatusNotification;
  /** The initial load is over only after this long without any signal (default 0). */
  settleMs?: number;
  /**
   * For a server that loads a project only when a file is opened: after the first didOpen,
   * requests wait up to this long for a progress to begin (then for its end, when
   * `waitForProgress`). The window ends as soon as a progress is announced.
   */
  firstOpenSettleMs?: number;
  /** Bound on each wait; past it the server is used anyway and counts as indexing (default 60 s). */
  maxWaitMs?: number;
}

/**
 * A server notification that says whether the server is busy, e.g. `{ busy: true }`. Notifications
 * whose params are not an object are ignored.
 */
export interface StatusNotification {
  method: string;
  /** Whether `params` say the server is busy; undefined when they say nothing about it (ignored). */
  busy: (params: Record<string, unknown>) => boolean | undefined;
  /** Text shown in wait reports while the server is busy, when `params` carry one. */
  message?: (params: Record<string, unknown>) => string | undefined;
  /** Busy until the first notification says otherwise (default: idle until one says busy). */
  initiallyBusy?: boolean;
}

export interface ServerSpec {
  /** Stable id: the adapter's. */
  id: string;
  launch: LaunchCommand;
  initializationOptions?: unknown;
  /** Answer to `workspace/configuration` for one item; `undefined` → null. */
  configuration?: (section: string | undefined, scopeUri: string | undefined) => unknown;
  /** Sent once after `initialized` when defined. */
  didChangeConfigurationSettings?: unknown;
  readiness: ReadinessRule;
  /**
   * Client capabilities announced in `initialize` on top of the generic ones (merged key by key),
   * for a server that sends a signal only when asked, e.g. `{ experimental: { statusNotification:
   * true } }`.
   */
  clientCapabilities?: ClientCapabilities;
  /** LSP languageId for a file extension (with dot, lower case), used in didOpen. */
  languageIdFor: (ext: string) => string;
  /** Push diagnostics only, or pull (`textDocument/diagnostic`) with push as the fallback. */
  diagnostics: "push" | "pull";
  /**
   * Push servers that debounce re-checks: the least time between a didOpen/didChange carrying
   * `text` and the server's first real publish for it. Publishes that arrive sooner (an empty set
   * sent to clear stale errors at once) do not count as the answer to that change.
   */
  diagnosticsDelayMs?: (text: string) => number;
  /**
   * Pull servers whose separate checker (a compiler run) publishes more diagnostics by push after
   * a save: the pushed set is merged into the pulled one, and a result taken while a run is
   * pending says so.
   */
  pushedAlongsidePull?: PushedChecker;
  /**
   * A checker this launch leaves off that would otherwise report more of a file's errors (why,
   * and how to turn it on): every file's diagnostics then say `complete: false` with this reason,
   * never "complete, no errors" for a file that does not compile.
   */
  diagnosticsGap?: string;
  /**
   * Send `didSave` after each change synced from disk (the text is the saved file), so servers
   * that check on save re-run their checker. Off for servers that do not need it.
   */
  saveOnSync?: boolean;
  /** Per-request timeout in ms (default 30 s). */
  requestTimeoutMs?: number;
  /**
   * A check of one file the server answers on request, outside the LSP: it describes the state
   * after every notification sent before it, so no wait for pushes is needed (push servers
   * publish a file's errors in parts, seconds apart on big files, with no "done" signal). When it
   * fails as unsupported, diagnostics fall back to waiting for pushes.
   */
  checkFile?: (run: CommandRunner, uri: string, opts: RequestOptions) => Promise<LspDiagnostic[]>;
  /**
   * Every file's diagnostics reflect the unsaved text of the open documents, the checks of the
   * files that depend on them included: an edit can be checked before anything is written by
   * showing the server its text as overlays (Documents.overlay). Unset where a checker reads the
   * disk only (a compiler run on save): such edits are checked by writing them and restoring the
   * old bytes. A file that does not exist yet cannot be overlaid (it is read from the disk first).
   */
  checksUnsaved?: boolean;
  /**
   * Long-lived processes below the server that do its work (a wrapper's worker). Each must
   * be running once the server is ready and must not exit while it runs: a wrapper whose worker
   * died keeps answering, with nothing (see `lsp/health.ts`). Short-lived children (a compiler
   * run) are not listed; any process of the tree that is stopped counts as stuck either way.
   */
  essentialProcesses?: readonly EssentialProcess[];
  /**
   * Work the adapter's own answers will need (a helper process to start), done once, shortly after
   * the first document is opened: the server then loads its project and scalpel waits for it anyway.
   * Done sooner (at spawn) it would hold up the handshake messages; later, a first answer.
   */
  warmUp?: () => void;
}

export interface EssentialProcess {
  /** Shown in reasons, e.g. "worker". */
  name: string;
  /** Matched against the process's argv joined by spaces. */
  commandLine: RegExp;
}

/** `workspace/executeCommand` on the session's server, with the session's gating and bounds. */
export type CommandRunner = <R>(command: string, args: unknown[], opts: RequestOptions) => Promise<R>;

export interface PushedChecker {
  /** Shown in reasons, e.g. "the build check". */
  name: string;
  /** `$/progress` titles of the checker's runs. */
  progressTitle: RegExp;
  /** After a save, how long a run may take to announce itself before none is expected. */
  startWithinMs: number;
  /** Bound on waiting for a run to end; past it the result is `complete: false`. */
  maxWaitMs: number;
  /**
   * After a run's end, the checker counts as idle only once nothing new came for this long (its
   * last findings may follow the end; a restart is an end and a begin). Default 0.
   */
  quietAfterEndMs?: number;
  /** The server starts a run once it has loaded the workspace: the first diagnostics wait for it. */
  startsAfterLoad?: boolean;
}

export type SessionStatus = "starting" | "ready" | "failed" | "stopped";

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface OpenDocument {
  uri: string;
  version: number;
  /** Text exactly as on disk (BOM stripped, line endings kept). */
  text: string;
}

export interface DiagnosticsResult {
  diagnostics: LspDiagnostic[];
  /** false when the wait bound was hit before the server published a settled set. */
  complete: boolean;
  incompleteReason?: string;
}
