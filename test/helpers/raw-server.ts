/**
 * A language server asked directly through the generic client (no tool layer), to compare a
 * tool's answer with what the server itself says — as bench/run.ts measures its floor.
 */
import { join } from "node:path";
import { log } from "../../src/core/log.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { LspSession } from "../../src/lsp/session.js";
import type { Position } from "./anchors.js";

export interface RawServer {
  session: LspSession;
  /** LSP params for a 1-based anchored position in a project file. */
  at(
    rel: string,
    pos: Position,
  ): Promise<{ textDocument: { uri: string }; position: { line: number; character: number } }>;
  close(): Promise<void>;
}

export async function rawServer(adapter: LanguageAdapter, dir: string): Promise<RawServer> {
  const spec = adapter.spec(dir);
  if ("missing" in spec) throw new Error(spec.missing);
  const session = new LspSession(spec, dir, log.child("raw"));
  session.start();
  await session.whenReady();
  return {
    session,
    async at(rel, pos) {
      const doc = await session.sync(join(dir, rel));
      return { textDocument: { uri: doc.uri }, position: { line: pos.line - 1, character: pos.column - 1 } };
    },
    close: () => session.shutdown(),
  };
}
