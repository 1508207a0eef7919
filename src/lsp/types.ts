/**
 * The contract between the generic LSP client (`lsp/`) and the language adapters
 * (`language-servers/`). `lsp/` knows nothing about tools, projects or MCP.
 */
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";

export interface LaunchCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** How the client decides the server has finished loading the project. */
export type ReadinessRule =
  /** Ready after initialize plus the end of every `$/progress` begun within `settleMs` of start. */
  | {
      kind: "progress";
      settleMs: number;
      maxWaitMs: number;
      /**
       * Servers that load a project only when a file is opened (tsserver): after the first
       * didOpen, requests wait up to this long for a progress to begin (then for its end).
       * Defaults to `settleMs`.
       */
      firstOpenSettleMs?: number;
    }
  /** rust-analyzer: ready when `experimental/serverStatus` says `quiescent: true`. */
  | { kind: "server-status"; maxWaitMs: number }
  /**
   * Dart: ready when neither `$/analyzerStatus` (`isAnalyzing: true`) nor an open `$/progress`
   * reports analysis (the server uses progress instead of the status notification when the client
   * supports workDoneProgress), and `settleMs` passed without either signal.
   */
  | { kind: "analyzer-status"; maxWaitMs: number; settleMs?: number }
  | { kind: "immediate" };

export interface ServerSpec {
  /** Stable id, e.g. "typescript". */
  id: string;
  launch: LaunchCommand;
  initializationOptions?: unknown;
  /** Answer to `workspace/configuration` for one item; `undefined` → null. */
  configuration?: (section: string | undefined, scopeUri: string | undefined) => unknown;
  /** Sent once after `initialized` when defined. */
  didChangeConfigurationSettings?: unknown;
  readiness: ReadinessRule;
  /** LSP languageId for a file extension (with dot, lower case), used in didOpen. */
  languageIdFor: (ext: string) => string;
  /** Push diagnostics only (tsserver), or pull with push fallback. */
  diagnostics: "push" | "pull";
  /**
   * Push servers that debounce re-checks: the least time between a didOpen/didChange carrying
   * `text` and the server's first real publish for it. Publishes that arrive sooner (tsls's
   * `eagerClear` empty set) do not count as the answer to that change.
   */
  diagnosticsDelayMs?: (text: string) => number;
  /**
   * Pull servers whose separate checker publishes more diagnostics by push after a save
   * (rust-analyzer's `cargo check`): the pushed set is merged into the pulled one, and a result
   * taken while a run is pending says so.
   */
  pushedAlongsidePull?: PushedChecker;
  /**
   * Send `didSave` after each change synced from disk (the text is the saved file), so servers
   * that check on save (rust-analyzer) re-run their checker. Off for servers that do not need it.
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
   * Long-lived processes below the server that do its work (tsls: `node tsserver.js`). Each must
   * be running once the server is ready and must not exit while it runs: a wrapper whose worker
   * died keeps answering, with nothing (see `lsp/health.ts`). Short-lived children (a `cargo
   * check`) are not listed; any process of the tree that is stopped counts as stuck either way.
   */
  essentialProcesses?: readonly EssentialProcess[];
}

export interface EssentialProcess {
  /** Shown in reasons, e.g. "tsserver". */
  name: string;
  /** Matched against the process's argv joined by spaces. */
  commandLine: RegExp;
}

/** `workspace/executeCommand` on the session's server, with the session's gating and bounds. */
export type CommandRunner = <R>(command: string, args: unknown[], opts: RequestOptions) => Promise<R>;

export interface PushedChecker {
  /** Shown in reasons, e.g. "cargo check". */
  name: string;
  /** `$/progress` titles of the checker's runs. */
  progressTitle: RegExp;
  /** After a save, how long a run may take to announce itself before none is expected. */
  startWithinMs: number;
  /** Bound on waiting for a run to end; past it the result is `complete: false`. */
  maxWaitMs: number;
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
