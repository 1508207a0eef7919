/**
 * `SCALPEL_LSP_TRACE=<file>`: one JSON line per message scalpel sends a language server — a
 * request with its method, the document it names and how long the answer took, a notification
 * with its method and document. For a user asking "what did this call make the server do", and
 * for the tests and the bench that count the requests and opens of a call the same way. Appended
 * synchronously (a line is on disk when the call that caused it answers); off unless set.
 */
import { appendFileSync } from "node:fs";

export interface TraceLine {
  /** ms since the process started (performance.now()). */
  at: number;
  /** The connection's label ("<adapter id> language server"). */
  server: string;
  kind: "request" | "notification";
  method: string;
  /** The document the params name (textDocument.uri), when they name one. */
  uri?: string;
  /** `workspace/executeCommand`'s command, with its first argument when that is a name. */
  command?: string;
  /** A request's time to its answer (or failure), ms. */
  ms?: number;
  /** A request that failed, timed out or was aborted. */
  failed?: true;
}

const target = process.env.SCALPEL_LSP_TRACE;

export const tracing = target !== undefined && target !== "";

function uriOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const doc = (params as { textDocument?: { uri?: unknown } }).textDocument;
  return typeof doc?.uri === "string" ? doc.uri : undefined;
}

function commandOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const { command, arguments: args } = params as { command?: unknown; arguments?: unknown };
  if (typeof command !== "string") return undefined;
  const first: unknown = Array.isArray(args) ? args[0] : undefined;
  return typeof first === "string" ? `${command} ${first}` : command;
}

export function trace(
  server: string,
  kind: TraceLine["kind"],
  method: string,
  params: unknown,
  extra: { ms?: number; failed?: true } = {},
): void {
  if (!tracing || !target) return;
  const uri = uriOf(params);
  const command = commandOf(params);
  const line: TraceLine = {
    at: Math.round(performance.now() * 10) / 10,
    server,
    kind,
    method,
    ...(uri ? { uri } : {}),
    ...(command ? { command } : {}),
    ...(extra.ms !== undefined ? { ms: Math.round(extra.ms * 10) / 10 } : {}),
    ...(extra.failed ? { failed: true as const } : {}),
  };
  try {
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  } catch {
    // A trace that cannot be written must not fail the call it describes.
  }
}
