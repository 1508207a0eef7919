/**
 * Edits a server sends back (`workspace/applyEdit`) while it carries out a command scalpel asked
 * for. They are collected, never applied here: the caller turns them into a plan for the one
 * writer (sandbox, secrets, locks, journal), which may still refuse them. Outside such a command a
 * server never writes through scalpel.
 */
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  WorkspaceEdit,
} from "vscode-languageserver-protocol";

export class ServerEdits {
  private collecting: WorkspaceEdit[] | null = null;
  /** One command at a time per server: every edit that arrives belongs to the command running. */
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * The answer to `workspace/applyEdit`. Accepted while a command runs: the server's view of the
   * files follows the disk (documents are re-sent from it), so an edit the writer refuses later
   * leaves the server consistent with what is really there.
   */
  receive(params: ApplyWorkspaceEditParams): ApplyWorkspaceEditResult {
    if (!this.collecting) return { applied: false, failureReason: "client applies edits itself" };
    this.collecting.push(params.edit);
    return { applied: true };
  }

  /** Runs `fn` (a command sent to the server) and hands back the edits the server sent meanwhile. */
  collect<T>(fn: () => Promise<T>): Promise<{ value: T; edits: WorkspaceEdit[] }> {
    const run = this.queue.then(async () => {
      const edits: WorkspaceEdit[] = [];
      this.collecting = edits;
      try {
        return { value: await fn(), edits };
      } finally {
        this.collecting = null;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
