/**
 * Whether a file's language server offers a request a tool needs. Servers declare what they
 * answer in their initialize capabilities; a tool that asked anyway would get an error or an
 * empty answer that reads like "nothing there". Measured: typescript-language-server 5.x and
 * rust-analyzer offer hover, signatureHelp and callHierarchy but no typeHierarchyProvider; gopls
 * v0.23.0 offers all four.
 */
import type { ServerCapabilities } from "vscode-languageserver-protocol";
import { AppError } from "../core/errors.js";
import type { LspSession } from "../lsp/session.js";

/** The server's own name (initialize serverInfo; pyright sends none), else the language's. */
export function serverName(session: LspSession, adapterId: string): string {
  return session.serverInfo?.name ?? `the ${adapterId} language server`;
}

export function supports(session: LspSession, capability: keyof ServerCapabilities): boolean {
  const value = session.capabilities[capability];
  return value !== undefined && value !== null && value !== false;
}

/** Throws `not_supported` naming the server and what to use instead. */
export function requireSupport(
  session: LspSession,
  adapterId: string,
  capability: keyof ServerCapabilities,
  tool: string,
  instead: string,
): void {
  if (supports(session, capability)) return;
  throw new AppError(
    "not_supported",
    `${tool} is not supported by ${serverName(session, adapterId)}: the server does not offer ${capability}. ${instead}`,
  );
}
