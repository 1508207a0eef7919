/**
 * How an adapter carries out a code action's command itself, when executing it on the server
 * would do more than compute an edit (write files directly, or ask the client to rename in a
 * request of its own): it asks the server for the edit alone.
 */
import type { Position, WorkspaceEdit } from "vscode-languageserver-protocol";
import type { RequestOptions } from "../lsp/types.js";

/** The part of a session the adapter asks through. */
export interface CommandServer {
  executeCommand<R>(command: string, args: unknown[], opts?: RequestOptions): Promise<R>;
}

export type CommandOutcome =
  /** The edit the command stands for; `renameAt` is where the name it generated stands after it. */
  | { kind: "edit"; edit: WorkspaceEdit; renameAt?: { uri: string; position: Position } }
  /** The command changes no file (the action's edit is all of it). */
  | { kind: "none" }
  /** The command would do something scalpel does not do (install a package): said, nothing applied. */
  | { kind: "refused"; reason: string };

/** undefined: a command the adapter does not know, which is then executed on the server. */
export type CodeActionCommand = (
  server: CommandServer,
  command: { command: string; arguments?: unknown[] },
  opts: RequestOptions,
) => Promise<CommandOutcome | undefined>;
