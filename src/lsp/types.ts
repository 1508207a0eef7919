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
  /** Dart: ready when `$/analyzerStatus` says `isAnalyzing: false`. */
  | { kind: "analyzer-status"; maxWaitMs: number }
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
  /** Per-request timeout in ms (default 30 s). */
  requestTimeoutMs?: number;
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
