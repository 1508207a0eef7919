/**
 * What the client answers to the server's requests and does with its notifications. The only
 * server-specific ones are those the adapter names (its readiness status notification, its
 * configuration answers); everything else is plain LSP.
 */
import { basename } from "node:path";
import type {
  ApplyWorkspaceEditParams,
  PublishDiagnosticsParams,
  Registration,
} from "vscode-languageserver-protocol";
import { ResponseError } from "vscode-languageserver-protocol/node";
import type { Logger } from "../core/log.js";
import { type LspConnection, METHOD_NOT_FOUND } from "./connection.js";
import type { DiagnosticsStore } from "./diagnostics.js";
import type { DiskSync } from "./disk-sync.js";
import type { PushedCheck } from "./pushed-check.js";
import type { Readiness } from "./readiness.js";
import type { ServerEdits } from "./server-edits.js";
import type { ServerSpec } from "./types.js";

export interface MessageTargets {
  spec: ServerSpec;
  rootDir: string;
  rootUri: string;
  log: Logger;
  readiness: Readiness;
  store: DiagnosticsStore;
  disk: DiskSync;
  pushedCheck: PushedCheck | undefined;
  edits: ServerEdits;
}

export function handleServerMessages(conn: LspConnection, t: MessageTargets): void {
  const c = conn.raw;
  const folders = () => [{ uri: t.rootUri, name: basename(t.rootDir) }];
  c.onRequest("workspace/configuration", (params: { items?: { section?: string; scopeUri?: string }[] }) =>
    (params.items ?? []).map((item) => t.spec.configuration?.(item.section, item.scopeUri) ?? null),
  );
  c.onRequest("client/registerCapability", (params: { registrations?: Registration[] }) => {
    t.disk.register(params.registrations ?? []);
    return null;
  });
  // The protocol spells the field `unregisterations`.
  c.onRequest("client/unregisterCapability", (params: { unregisterations?: { id: string }[] }) => {
    t.disk.unregister((params.unregisterations ?? []).map((u) => u.id));
    return null;
  });
  c.onRequest("window/workDoneProgress/create", (params: { token: string | number }) => {
    t.readiness.created(params.token);
    return null;
  });
  // A server may ask clients to re-pull diagnostics after its checker ran; scalpel pulls per call.
  c.onRequest("workspace/diagnostic/refresh", () => null);
  c.onRequest("workspace/workspaceFolders", folders);
  c.onRequest("window/showMessageRequest", () => null);
  // Scalpel validates and applies edits itself: taken only while a command scalpel sent runs.
  c.onRequest("workspace/applyEdit", (params: ApplyWorkspaceEditParams) => t.edits.receive(params));
  // vscode-jsonrpc keeps one handler per method, and the adapter's status notification may be one
  // the client handles anyway (a log line): each method gets every handler meant for it.
  const handlers = new Map<string, Array<(params: unknown) => void>>();
  const on = <P>(method: string, handle: (params: P) => void) =>
    handlers.set(method, [...(handlers.get(method) ?? []), handle as (params: unknown) => void]);
  on("$/progress", (params: { token: string | number; value: unknown }) => {
    t.pushedCheck?.progress(params.token, params.value);
    t.readiness.progress(params.token, params.value);
  });
  on("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => t.store.publish(params));
  on("window/logMessage", (params: { message?: string }) => t.log.debug(`server: ${params.message}`));
  on("window/showMessage", (params: { message?: string }) =>
    t.log.debug(`server message: ${params.message}`),
  );
  const status = t.spec.readiness.status;
  if (status) on(status.method, (params: unknown) => t.readiness.status(params));
  for (const [method, list] of handlers) {
    c.onNotification(method, (params: unknown) => {
      for (const handle of list) handle(params);
    });
  }
  c.onNotification((method: string) => t.log.debug(`ignored notification ${method}`));
  c.onRequest((method: string) => {
    t.log.debug(`unsupported server request ${method}`);
    return new ResponseError(METHOD_NOT_FOUND, `scalpel does not handle ${method}`);
  });
}
