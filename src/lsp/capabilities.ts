/**
 * What scalpel tells servers it supports. Only what the client really handles: servers change their
 * answers by these flags (a server may collapse symbol ranges without hierarchical support, or
 * report its load progress only with workDoneProgress). An adapter adds what its server needs
 * asked for (ServerSpec.clientCapabilities).
 */
import type { ClientCapabilities, SymbolKind } from "vscode-languageserver-protocol";

const symbolKinds = Array.from({ length: 26 }, (_, i) => (i + 1) as SymbolKind);

const codeActionKinds = [
  "",
  "quickfix",
  "refactor",
  "refactor.extract",
  "refactor.inline",
  "refactor.move",
  "refactor.rewrite",
  "source",
  "source.organizeImports",
  "source.fixAll",
];

const genericCapabilities: ClientCapabilities = {
  workspace: {
    // Edits a server sends while running a command are collected for the writer (server-edits.ts).
    applyEdit: true,
    workspaceEdit: {
      documentChanges: true,
      resourceOperations: ["create", "rename", "delete"],
      failureHandling: "abort",
    },
    configuration: true,
    didChangeConfiguration: { dynamicRegistration: false },
    // Servers register their globs and scalpel announces changes (src/lsp/file-watcher.ts); some
    // use client watching only when relative patterns are supported too.
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    workspaceFolders: true,
    symbol: { dynamicRegistration: false, symbolKind: { valueSet: symbolKinds } },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false, willSaveWaitUntil: false },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
    definition: { dynamicRegistration: false, linkSupport: false },
    references: { dynamicRegistration: false },
    implementation: { dynamicRegistration: false, linkSupport: false },
    rename: { dynamicRegistration: false, prepareSupport: true },
    // For the type, call and type hierarchy tools. Markdown hovers: the markup is stripped on
    // scalpel's side, which keeps the code fences' content (the signature) apart from the prose.
    hover: { dynamicRegistration: false, contentFormat: ["markdown", "plaintext"] },
    signatureHelp: {
      dynamicRegistration: false,
      signatureInformation: {
        documentationFormat: ["markdown", "plaintext"],
        parameterInformation: { labelOffsetSupport: true },
      },
    },
    // Literal actions with lazy resolve: servers then send the edit of an action only when it is
    // chosen (a server may answer an unresolved action with `data` and no edit).
    codeAction: {
      dynamicRegistration: false,
      codeActionLiteralSupport: { codeActionKind: { valueSet: codeActionKinds } },
      isPreferredSupport: true,
      dataSupport: true,
      resolveSupport: { properties: ["edit"] },
    },
    callHierarchy: { dynamicRegistration: false },
    typeHierarchy: { dynamicRegistration: false },
    documentSymbol: {
      dynamicRegistration: false,
      hierarchicalDocumentSymbolSupport: true,
      symbolKind: { valueSet: symbolKinds },
    },
  },
  window: { workDoneProgress: true, showMessage: {} },
  general: { positionEncodings: ["utf-16"] },
};

/** The generic capabilities with the adapter's `extra` merged in key by key (extra wins on a clash). */
export function clientCapabilities(extra?: ClientCapabilities): ClientCapabilities {
  return extra === undefined
    ? genericCapabilities
    : (merged(genericCapabilities, extra) as ClientCapabilities);
}

function merged(base: unknown, extra: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(extra)) return extra;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) out[key] = key in base ? merged(base[key], value) : value;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
