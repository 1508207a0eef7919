/**
 * Diagnostics of one file as the disk is now, by the strategy the adapter declares (ServerSpec):
 * pulled (`textDocument/diagnostic`), merged with a checker's pushed findings (`pushedAlongsidePull`),
 * asked of the server's own on-request check (`checkFile`), or waited for as pushes until they
 * settle (`diagnosticsDelayMs`, a quiet period, a bound). A result that may be stale says so.
 */
import { relative } from "node:path";
import type { DocumentDiagnosticReport } from "vscode-languageserver-protocol";
import { isAppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { METHOD_NOT_FOUND } from "./connection.js";
import type { DiagnosticsStore } from "./diagnostics.js";
import type { DiskSync } from "./disk-sync.js";
import { messageOf, type ServerLifecycle } from "./lifecycle.js";
import { PushedCheck } from "./pushed-check.js";
import type { Readiness } from "./readiness.js";
import type { RequestGate } from "./request-gate.js";
import type { DiagnosticsResult, RequestOptions, ServerSpec } from "./types.js";

const DEFAULT_DIAG_WAIT_MS = 10_000;
const DEFAULT_DIAG_QUIET_MS = 700;

export interface DiagnosticsOptions {
  maxWaitMs?: number;
  quietMs?: number;
  signal?: AbortSignal;
}

export class FileDiagnostics {
  /** The checker that publishes beside pulled diagnostics, when the adapter declares one. */
  readonly pushedCheck: PushedCheck | undefined;
  private pullUnsupported = false;
  private checkFileUnsupported = false;

  constructor(
    private readonly spec: ServerSpec,
    private readonly rootDir: string,
    private readonly log: Logger,
    private readonly life: ServerLifecycle,
    private readonly gate: RequestGate,
    private readonly readiness: Readiness,
    private readonly disk: DiskSync,
    private readonly store: DiagnosticsStore,
  ) {
    this.pushedCheck = spec.pushedAlongsidePull ? new PushedCheck(spec.pushedAlongsidePull) : undefined;
  }

  /** See LspSession.diagnostics. */
  async of(absPath: string, opts: DiagnosticsOptions = {}): Promise<DiagnosticsResult> {
    const maxWaitMs = opts.maxWaitMs ?? DEFAULT_DIAG_WAIT_MS;
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      await this.life.whenInitialized();
      await this.disk.syncWithDisk(true);
      // Requests made during the check flush too: any flush from here on means the check may
      // describe an older disk.
      const since = this.disk.movedCount;
      const left = Math.max(0, deadline - Date.now());
      const result = await this.once(absPath, { ...opts, maxWaitMs: left }, maxWaitMs);
      await this.disk.syncWithDisk(true);
      if (this.disk.movedCount === since) return this.withGap(result);
      const moved = this.disk.movedPaths;
      if (Date.now() >= deadline) {
        const names = moved.slice(0, 3).map((p) => relative(this.rootDir, p) || ".");
        return {
          diagnostics: result.diagnostics,
          complete: false,
          incompleteReason: `files kept changing on disk while the server checked (${names.join(", ")}${moved.length > 3 ? ", …" : ""}); call again once they are written`,
        };
      }
    }
  }

  /** A result of a launch that leaves a checker off is never complete (ServerSpec.diagnosticsGap). */
  private withGap(result: DiagnosticsResult): DiagnosticsResult {
    const gap = this.spec.diagnosticsGap;
    if (!gap || !result.complete) return result;
    return { diagnostics: result.diagnostics, complete: false, incompleteReason: gap };
  }

  private async once(
    absPath: string,
    opts: { maxWaitMs: number; quietMs?: number; signal?: AbortSignal },
    boundMs: number,
  ): Promise<DiagnosticsResult> {
    let doc = await this.disk.sync(absPath);
    if (this.spec.diagnostics === "pull" && !this.pullUnsupported) {
      try {
        const report = await this.gate.request<DocumentDiagnosticReport>(
          "textDocument/diagnostic",
          { textDocument: { uri: doc.uri } },
          opts.signal ? { signal: opts.signal } : {},
        );
        // Without previousResultId the server must answer "full".
        if (report.kind === "full") {
          if (!this.pushedCheck) return { diagnostics: report.items, complete: true };
          return await this.withPushedCheck(doc.uri, opts.signal);
        }
      } catch (e) {
        if (!(isAppError(e) && e.details?.lspCode === METHOD_NOT_FOUND)) throw e;
        this.log.info("server does not support pull diagnostics; using published diagnostics");
        this.pullUnsupported = true;
      }
    }
    const checked = await this.checkFile(doc.uri, opts.maxWaitMs, boundMs, opts.signal);
    if (checked) return checked;
    await this.gate.whenReady(opts.signal);
    const last = this.store.get(doc.uri);
    const lastWriteSeq = this.disk.lastWriteSeq;
    if (lastWriteSeq > doc.changedSeq && (last === undefined || lastWriteSeq > last.seq)) {
      // Another file was written since this one was last checked: its errors may have changed
      // although its text did not, and push servers re-check only on a change of their own.
      doc = (await this.disk.documents.touch(doc.uri)) ?? doc;
    }
    const settling = this.store.settle(doc.uri, {
      afterSeq: doc.changedSeq,
      notBefore: doc.changedAt + (this.spec.diagnosticsDelayMs?.(doc.text) ?? 0),
      minVersion: doc.version,
      maxWaitMs: opts.maxWaitMs,
      quietMs: opts.quietMs ?? DEFAULT_DIAG_QUIET_MS,
      signal: opts.signal,
    });
    const complete = await this.readiness.reportWhile(this.life.label, "checking the file", settling);
    if (this.life.status === "failed") throw this.life.crashed("waiting for diagnostics");
    const diagnostics = this.store.get(doc.uri)?.diagnostics ?? [];
    return complete
      ? { diagnostics, complete }
      : {
          diagnostics,
          complete,
          incompleteReason: `diagnostics still pending after ${Math.round(boundMs / 100) / 10} s`,
        };
  }

  /**
   * The server's own on-request check of one file (ServerSpec.checkFile), bounded by what is left
   * of the diagnostics bound; undefined when the server has none or it turned out unsupported.
   */
  private async checkFile(
    uri: string,
    leftMs: number,
    boundMs: number,
    signal: AbortSignal | undefined,
  ): Promise<DiagnosticsResult | undefined> {
    const check = this.spec.checkFile;
    if (!check || this.checkFileUnsupported) return undefined;
    const run = <R>(command: string, args: unknown[], o: RequestOptions) =>
      this.gate.request<R>("workspace/executeCommand", { command, arguments: args }, o);
    try {
      const diagnostics = await check(run, uri, {
        timeoutMs: Math.max(1, leftMs),
        ...(signal ? { signal } : {}),
      });
      return { diagnostics, complete: true };
    } catch (e) {
      if (isAppError(e) && e.code === "request_timeout") {
        return {
          diagnostics: this.store.get(uri)?.diagnostics ?? [],
          complete: false,
          incompleteReason: `the server's check of this file did not finish within ${Math.round(boundMs / 100) / 10} s; these are its last published diagnostics`,
        };
      }
      if (!isAppError(e) || e.details?.lspCode === undefined) throw e;
      // An error answer: published diagnostics instead; for good when the server lacks the method.
      this.log.info(`on-request check failed (${messageOf(e)}); using published diagnostics`);
      if (e.details.lspCode === METHOD_NOT_FOUND) this.checkFileUnsupported = true;
      return undefined;
    }
  }

  /**
   * Pulled diagnostics merged with the checker's pushed ones, after waiting (bounded) for the
   * checker's pending run; pulled again after the wait so both describe the same text.
   */
  private async withPushedCheck(uri: string, signal: AbortSignal | undefined): Promise<DiagnosticsResult> {
    const state = await this.readiness.reportWhile(
      this.life.label,
      `waiting for ${this.spec.pushedAlongsidePull?.name ?? "the checker"}`,
      this.settlePushedCheck(uri, signal),
    );
    if (this.life.status === "failed") throw this.life.crashed("waiting for diagnostics");
    const report = await this.gate.request<DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri } },
      signal ? { signal } : {},
    );
    const pulled = report.kind === "full" ? report.items : [];
    const pushed = this.store.get(uri)?.diagnostics ?? [];
    const seen = new Set<string>();
    const diagnostics = [...pulled, ...pushed].filter((d) => {
      const key = JSON.stringify([d.range, d.message, d.code ?? null, d.severity ?? null]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return state.complete
      ? { diagnostics, complete: true }
      : { diagnostics, complete: false, incompleteReason: state.reason ?? "checker still running" };
  }

  /**
   * Waits for the checker's expected run. A server may drop the run a save asked for (see the
   * adapter's `pushedAlongsidePull` for what was measured): a missed run is asked for once more by
   * saving the file again; when that one does not begin either, the answer says it may be stale.
   */
  private async settlePushedCheck(
    uri: string,
    signal: AbortSignal | undefined,
  ): Promise<{ complete: boolean; reason?: string }> {
    const check = this.pushedCheck!;
    const first = await check.settle(signal);
    if (!first.missedStart) return first;
    this.log.debug(`${this.spec.pushedAlongsidePull?.name} did not start after a save; saving ${uri} again`);
    await this.life.conn?.notify("textDocument/didSave", { textDocument: { uri } });
    check.expectRun();
    const again = await check.settle(signal);
    if (!again.missedStart) return again;
    return {
      complete: false,
      reason: `${this.spec.pushedAlongsidePull?.name} did not run after the last change; its findings may be stale`,
    };
  }
}
