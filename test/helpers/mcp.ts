/**
 * Starts the built CLI (`node dist/src/cli.js mcp --project <dir>`) as a child process and connects
 * the MCP SDK's `Client` to it over stdio. The SDK's StdioClientTransport keeps the child's stdout
 * to itself, so this file has a small Transport over the child's stdio that also records every raw
 * stdout line (the stdout-purity test parses each of them) and the child's stderr.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { type FileChange, readFileChange } from "../../src/commit/edit-result.js";
import { type ListedSite, sitesOfFile } from "../../src/references/listing.js";
import { copyFixture, repoRoot, type TempProject } from "./fixtures.js";
import { sdkClient } from "./sdk-client.js";
import { daemonDefaultEnv, relayed, testVia, type Via } from "./via-daemon.js";

export { stopTestDaemons, testVia, type Via } from "./via-daemon.js";

export const cliPath = join(repoRoot, "dist", "src", "cli.js");

/**
 * The user-level folder (registry, trust store) of every server a test starts, unless the test
 * names its own: tests never read or write the real `~/.scalpel`.
 */
let testHome: string | undefined;
function defaultScalpelHome(): string {
  if (testHome === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "scalpel-test-home-"));
    testHome = dir;
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return testHome;
}

/** Per-request timeout: generous, a cold tsserver on 2 cores can take a while on big fixtures. */
export const CALL_TIMEOUT_MS = 180_000;

export function assertCliBuilt(): void {
  if (!existsSync(cliPath)) {
    throw new Error(
      `The built CLI ${join("dist", "src", "cli.js")} does not exist. Run \`npm run build\` first ` +
        "(`npm test` builds before running the tests).",
    );
  }
}

/** How the child ended after stdin was closed. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the child exited by itself after stdin closed, without being signalled by us. */
  exitedOnItsOwn: boolean;
}

class ChildStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly stdoutLines: string[] = [];
  /** Lines of stdout that are not JSON-RPC messages. */
  readonly badStdoutLines: string[] = [];
  stderr = "";
  child: ChildProcess | undefined;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  private pending = Buffer.alloc(0);
  private closing: Promise<ExitInfo> | undefined;
  private signalledByUs = false;

  constructor(
    private readonly command: string,
    private readonly args: string[],
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, this.args, {
        cwd: this.cwd,
        env: this.env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      this.exit = new Promise((res) => {
        child.once("exit", (code, signal) => res({ code, signal }));
      });
      child.once("error", (e) => {
        reject(e);
        this.onerror?.(e);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.flushPartial();
        this.onclose?.();
      });
      child.stdin?.on("error", () => {
        // EPIPE after the child exited: the close path reports it.
      });
      child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (s: string) => {
        if (this.stderr.length < 4_000_000) this.stderr += s;
      });
    });
  }

  private onStdout(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const nl = this.pending.indexOf(10);
      if (nl < 0) return;
      const line = this.pending.subarray(0, nl).toString("utf8");
      this.pending = this.pending.subarray(nl + 1);
      this.onLine(line);
    }
  }

  private flushPartial(): void {
    if (this.pending.length > 0) {
      const rest = this.pending.toString("utf8");
      this.pending = Buffer.alloc(0);
      this.stdoutLines.push(rest);
      this.badStdoutLines.push(`(unterminated) ${rest}`);
    }
  }

  private onLine(line: string): void {
    this.stdoutLines.push(line);
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line.replace(/\r$/, "")));
    } catch (e) {
      this.badStdoutLines.push(line);
      this.onerror?.(new Error(`non-JSON-RPC line on stdout: ${line.slice(0, 200)} (${String(e)})`));
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error("scalpel child is not running"));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    await this.shutdown();
  }

  /** Closes stdin (the disconnect), waits for the child; signals it only if it does not exit. */
  shutdown(graceMs = 8000): Promise<ExitInfo> {
    this.closing ??= this.doClose(graceMs);
    return this.closing;
  }

  private async doClose(graceMs: number): Promise<ExitInfo> {
    const child = this.child;
    const exit = this.exit;
    if (!child || !exit) return { code: null, signal: null, exitedOnItsOwn: false };
    if (child.exitCode === null && child.signalCode === null) child.stdin?.end();
    const timeout = (ms: number) => new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms).unref());
    let r = await Promise.race([exit, timeout(graceMs)]);
    if (r === "timeout") {
      this.signalledByUs = true;
      child.kill("SIGTERM");
      r = await Promise.race([exit, timeout(3000)]);
      if (r === "timeout") {
        child.kill("SIGKILL");
        r = await exit;
      }
    }
    return { ...r, exitedOnItsOwn: !this.signalledByUs };
  }
}

export interface ScalpelHandle {
  client: Client;
  transport: Transport;
  /** Every raw line the server wrote to stdout, in order. */
  stdoutLines: string[];
  /** Stdout lines that did not parse as JSON-RPC messages. */
  badStdoutLines: string[];
  /** Everything the server wrote to stderr so far. */
  readonly stderr: string;
  pid: number;
  /** The project root passed with --project (if any). */
  project: string | undefined;
  /** Results that contained the absolute project path (the contract forbids host paths). */
  hostPathLeaks: string[];
  /** Calls a tool and records host-path leaks; see `call`. */
  call<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<ToolResult<T>>;
  /** Disconnects (closes stdin) and waits for the child to exit. */
  close(): Promise<ExitInfo>;
}

export interface StartOptions {
  project?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Trust the --project for the session (`--trust`): the default, so that tests of declared
   * servers, build scripts and proc macros see them run. `false` tests an untrusted project.
   */
  trust?: boolean;
  /**
   * Folders whose projects activate_project may open (`--projects-in`). Default: the `cwd` given
   * (tests that activate fixtures by path under their temp folder).
   */
  projectsIn?: string[];
  /** In-process (the default unless the file runs `@via daemon`) or through the default daemon path. */
  via?: Via;
}

export async function startScalpel(opts: StartOptions = {}): Promise<ScalpelHandle> {
  assertCliBuilt();
  const args = [cliPath, "mcp"];
  if (opts.project !== undefined) args.push("--project", opts.project);
  if (opts.project !== undefined && opts.trust !== false) args.push("--trust");
  const projectsIn = opts.projectsIn ?? (opts.cwd !== undefined ? [opts.cwd] : []);
  for (const dir of projectsIn) args.push("--projects-in", dir);
  args.push(...(opts.args ?? []));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SCALPEL_HOME: process.env.SCALPEL_HOME ?? defaultScalpelHome(),
    ...((opts.via ?? testVia) === "in-process" ? { SCALPEL_DAEMON: "0" } : {}),
    ...opts.env,
  };
  const transport = new ChildStdioTransport(
    process.execPath,
    args,
    opts.cwd ?? opts.project ?? repoRoot,
    (opts.via ?? testVia) === "default" ? daemonDefaultEnv(env, cliPath) : env,
  );
  const client = sdkClient("scalpel-e2e");
  try {
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    // Caches every tool's outputSchema, so that callTool validates structuredContent against it.
    await client.listTools();
  } catch (e) {
    await transport.shutdown(2000);
    throw new Error(
      `could not start scalpel: ${String(e)}\n--- stderr ---\n${transport.stderr.slice(-4000)}`,
    );
  }
  const pid = transport.child?.pid;
  if (pid === undefined) throw new Error("scalpel child has no pid");
  // A file run `@via daemon` that silently served in-process (a daemon that could not start) would
  // pass while testing nothing of the daemon: it must have relayed.
  if (opts.via === undefined && testVia === "default") await relayed(transport);
  const hostPathLeaks: string[] = [];
  const handle: ScalpelHandle = {
    client,
    transport,
    stdoutLines: transport.stdoutLines,
    badStdoutLines: transport.badStdoutLines,
    get stderr() {
      return transport.stderr;
    },
    pid,
    project: opts.project,
    hostPathLeaks,
    async call<T>(name: string, callArgs: Record<string, unknown> = {}) {
      const r = await call<T>(client, name, callArgs);
      if (opts.project !== undefined) {
        const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
        if (all.includes(opts.project)) hostPathLeaks.push(`${name}: ${r.text.slice(0, 300)}`);
      }
      return r;
    },
    async close() {
      try {
        await client.close();
      } catch {
        // the transport's close below is what matters
      }
      return transport.shutdown();
    },
  };
  return handle;
}

/** A fresh copy of a fixture with scalpel serving it: what most e2e files start from. */
export async function serveFixture(name: string): Promise<{ fx: TempProject; h: ScalpelHandle }> {
  const fx = await copyFixture(name);
  return { fx, h: await startScalpel({ project: fx.dir }) };
}

export async function stopServing(h: ScalpelHandle | undefined, fx: TempProject | undefined): Promise<void> {
  await h?.close();
  await fx?.cleanup();
}

export interface ToolResult<T> {
  structured: T;
  text: string;
  isError: boolean;
}

/**
 * Calls a tool. Returns its structuredContent, the concatenated text items and `isError`.
 * Protocol errors (JSON-RPC errors, output-schema violations) throw.
 */
export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult<T>> {
  const r = await client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
  });
  const content = Array.isArray(r.content) ? r.content : [];
  const text = content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  return { structured: (r.structuredContent ?? undefined) as T, text, isError: r.isError === true };
}

/** Like `call`, but fails with the server's message when the result is an error. */
export async function callOk<T = Record<string, unknown>>(
  h: ScalpelHandle,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const r = await h.call<T>(name, args);
  if (r.isError) throw new Error(`${name}(${JSON.stringify(args)}) returned an error result: ${r.text}`);
  if (r.structured === undefined) throw new Error(`${name} returned no structuredContent; text: ${r.text}`);
  return r.structured;
}

// ---- result shapes from the documented protocol (docs/tools.md) ----

/** A Symbol: `relative_path` only on a symbol listed by itself (not on children, nor in an overview). */
export interface Sym {
  name_path: string;
  kind: string;
  relative_path?: string;
  start_line: number;
  end_line: number;
  body?: string;
  docs?: string;
  docs_lines?: number;
  children?: Sym[];
  detail?: string;
}

/** One file of find_referencing_symbols' answer: its path line, then a line per site (src/references/listing.ts). */
export type ReferenceFile = string;

export interface ReferencesResult {
  /** `name_path [kind] path:start-end` */
  symbol: string;
  files: ReferenceFile[];
  complete: boolean;
  incomplete_reason?: string;
  truncated?: boolean;
  total?: number;
  shown?: number;
  next?: string;
}

/** One site of a references answer, its file and container spelled out (a test's view, not the wire's). */
export type Reference = ListedSite;

/** The sites of a references answer in its order (each file: import sites, then the others). */
export function sitesOf(r: { files: ReferenceFile[] }): Reference[] {
  return r.files.flatMap(sitesOfFile);
}

/** Each file of a references answer read back: its path and project, import lines and other sites. */
export function filesOf(r: { files: ReferenceFile[] }): Array<{
  relative_path: string;
  project?: string | null;
  secret?: true;
  imports: number[];
  sites: Reference[];
}> {
  return r.files.map((f) => {
    const sites = sitesOfFile(f);
    const first = sites[0]!;
    return {
      relative_path: first.relative_path,
      ...(first.project !== undefined ? { project: first.project } : {}),
      ...(first.secret ? { secret: true as const } : {}),
      imports: sites.filter((s) => s.import).map((s) => s.line),
      sites: sites.filter((s) => !s.import),
    };
  });
}

/** A file's outline (find_implementations, a directory's overview): its path, then `name_path [kind] start-end` lines. */
export type OutlineFile = string;

/** An overview entry: an outline string, or a file with its symbols as objects. */
export type OverviewFile = OutlineFile | { relative_path: string; symbols: Sym[] };

/** Each entry of an overview read back: its path, and its symbols (from the outline lines, or as given). */
export function overviewFiles(
  files: readonly OverviewFile[],
): Array<{ relative_path: string; symbols: Sym[]; outline?: string }> {
  return files.map((f) => {
    if (typeof f !== "string") return f;
    const [relative_path = "", ...lines] = f.split("\n");
    return { relative_path, symbols: outlineSymbols([f]), outline: lines.join("\n") };
  });
}

/** The symbols of outline entries, each with its file (a test's view, not the wire's). */
export function outlineSymbols(files: readonly OutlineFile[]): Sym[] {
  return files.flatMap((f) => {
    const [relative_path = "", ...lines] = f.split("\n");
    return lines.map((l) => {
      const m = /^(\S+) \[(\w+)\] (\d+)(?:-(\d+))?$/.exec(l);
      if (!m) throw new Error(`not an outline line: ${l}`);
      return {
        relative_path,
        name_path: m[1]!,
        kind: m[2]!,
        start_line: Number(m[3]),
        end_line: Number(m[4] ?? m[3]),
      };
    });
  });
}

/** One file of search_for_pattern's answer: its matching lines. */
export interface SearchFile {
  relative_path: string;
  hits: Array<{ line: number; snippet: string }>;
}

/** The matching lines of a search answer in order, each with its file (a test's view, not the wire's). */
export function searchHits(r: {
  matches: readonly SearchFile[];
}): Array<{ relative_path: string; line: number; snippet: string }> {
  return r.matches.flatMap((f) => f.hits.map((h) => ({ relative_path: f.relative_path, ...h })));
}

export interface Diagnostic {
  severity: string;
  line: number;
  column: number;
  message: string;
  code?: string | number;
  source?: string;
  symbol?: string;
  relative_path?: string;
}

/**
 * An edit delta's diagnostic lines, read back into their fields (a test's view, not the wire's); a
 * line that names more places (` — also at path:line:column (in Symbol), …`) gives one per place.
 */
export function parseDiagnostics(lines: readonly string[]): Diagnostic[] {
  return lines.flatMap((whole) => {
    const [line = "", also] = whole.split(" — also at ");
    const m =
      /^(?:(.+?):)?(\d+):(\d+) (error|warning|information|hint)(?: \[([^\]]+)\])?(?: ([^:]+))?: ([\s\S]*?)(?: \(in (.+)\))?$/.exec(
        line,
      );
    if (!m) throw new Error(`not a diagnostic line: ${whole}`);
    const first: Diagnostic = {
      severity: m[4]!,
      line: Number(m[2]),
      column: Number(m[3]),
      message: m[7]!,
      ...(m[5] !== undefined ? { code: m[5] } : {}),
      ...(m[6] !== undefined ? { source: m[6] } : {}),
      ...(m[8] !== undefined ? { symbol: m[8] } : {}),
      ...(m[1] !== undefined ? { relative_path: m[1] } : {}),
    };
    const others = (also === undefined ? [] : also.split(", ")).map((place): Diagnostic => {
      const p = /^(?:(.+?):)?(\d+):(\d+)(?: \(in (.+)\))?$/.exec(place);
      if (!p) throw new Error(`not a diagnostic's place: ${place} in ${whole}`);
      const { symbol: _s, relative_path: _p, ...shared } = first;
      return {
        ...shared,
        line: Number(p[2]),
        column: Number(p[3]),
        ...(p[4] !== undefined ? { symbol: p[4] } : {}),
        ...(p[1] !== undefined ? { relative_path: p[1] } : {}),
      };
    });
    return [first, ...others];
  });
}

/** An edit's files read back: path, added and removed lines, sites and lines (a test's view, not the wire's). */
export function editedFiles(r: { files: readonly string[] }): FileChange[] {
  return r.files.map((line) => {
    const f = readFileChange(line);
    if (!f) throw new Error(`not an edited file's line: ${line}`);
    return f;
  });
}

export interface EditResult {
  applied: boolean;
  edit_id?: string;
  /** One line each, `PATH (+A -R)[ N sites, at lines …]`: `editedFiles`. */
  files: string[];
  diff?: string;
  diagnostics_delta?: {
    /** One line each (`path:line:column severity [code] source: message (in Symbol)`): `parseDiagnostics`. */
    new: string[];
    resolved: string[];
    checked_count?: number;
    complete?: boolean;
    incomplete_reason?: string;
  };
}

export interface FindSymbolResult {
  symbols: Sym[];
  complete: boolean;
  truncated?: boolean;
  hint?: string;
}

/** Flattens a symbol tree (pre-order). */
export function flatten(symbols: Sym[]): Sym[] {
  const out: Sym[] = [];
  const walk = (s: Sym) => {
    out.push(s);
    for (const c of s.children ?? []) walk(c);
  };
  for (const s of symbols) walk(s);
  return out;
}

// ---- process helpers for the orphan test ----

/** Every descendant pid of `pid` (children, grandchildren, …), via `ps -o pid= --ppid`. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    const r = spawnSyncText("ps", ["-o", "pid=", "--ppid", String(p)]);
    for (const tok of r.split(/\s+/)) {
      const child = Number(tok);
      if (tok !== "" && Number.isInteger(child) && !out.includes(child)) {
        out.push(child);
        queue.push(child);
      }
    }
  }
  return out;
}

/** True while `pid` exists and is not a zombie (a zombie has exited; only its parent has not reaped it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw e;
  }
  const state = spawnSyncText("ps", ["-o", "stat=", "-p", String(pid)]).trim();
  return state !== "" && !state.startsWith("Z");
}

function spawnSyncText(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.stdout ?? "";
}

/** Waits until none of `pids` is alive, or `ms` passes; returns the survivors. */
export async function waitForExit(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Command line of a pid, for failure messages. */
export function commandOf(pid: number): string {
  return spawnSyncText("ps", ["-o", "args=", "-p", String(pid)]).trim();
}
