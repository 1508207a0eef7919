/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC on stdin/stdout, as the SDK's
 * StdioServerTransport, with one difference. The SDK's read buffer throws once 10 MiB are buffered
 * and the transport then closes itself (SDK 1.32: shared/stdio.js ReadBuffer.append →
 * server/stdio.js _ondata → close()), so a request of 10 MiB made the server exit silently. Here a
 * line over the limit is skipped as it streams in — only its first and last 64 KiB are kept, to
 * find its id — and answered with a JSON-RPC error that names the limit; the next line is read as
 * usual. Memory stays bounded whatever the size of the line.
 *
 * The SDK stays out of this file (only the transports' entry points import it): `parse` is its
 * message schema, given by `server.ts`.
 */

/** The input limit for one request (a JSON-RPC line), the SDK's own default. */
export const maxRequestBytes = 10 * 1024 * 1024;
const keptBytes = 64 * 1024;

/** JSON-RPC "Invalid Request": the request was not read, so it was not run. */
const invalidRequest = -32600;

export interface LineTransportOptions {
  /** Bytes one line may have; over it the line is answered with an error and skipped. */
  maxLineBytes?: number;
  /** Told about skipped lines and unreadable messages (the log). */
  warn?: (message: string) => void;
}

export class StdioLineTransport<M extends object> {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: M) => void;

  private readonly limit: number;
  /** Chunks of the current line, while it is within the limit. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** While skipping a line over the limit: its first and (a window of) its last bytes. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private started = false;

  constructor(
    private readonly parse: (line: string) => M,
    private readonly options: LineTransportOptions = {},
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.limit = options.maxLineBytes ?? maxRequestBytes;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioLineTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  send(message: M): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    this.onclose?.();
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let nl = data.indexOf(10); ; nl = data.indexOf(10)) {
      const part = nl < 0 ? data : data.subarray(0, nl);
      this.take(part);
      if (nl < 0) return;
      this.endLine();
      data = data.subarray(nl + 1);
    }
  };

  /** Adds bytes to the current line, switching to skipping once it passes the limit. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) {
      const s = this.skipping;
      s.bytes += part.length;
      s.tail = lastBytes(Buffer.concat([s.tail, part.subarray(Math.max(0, part.length - keptBytes))]));
      return;
    }
    if (this.size + part.length <= this.limit) {
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    const all = Buffer.concat([...this.chunks, part]);
    this.skipping = { head: all.subarray(0, keptBytes), tail: lastBytes(all), bytes: all.length };
    this.chunks = [];
    this.size = 0;
  }

  private endLine(): void {
    const skipped = this.skipping;
    if (skipped) {
      this.skipping = undefined;
      this.refuse(skipped.head.toString("utf8"), skipped.tail.toString("utf8"), skipped.bytes);
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    if (line.trim() === "") return;
    let message: M;
    try {
      message = this.parse(line);
    } catch (e) {
      // As the SDK does: an unreadable line is reported and the stream goes on.
      this.options.warn?.(`ignored a message that is not JSON-RPC: ${(e as Error).message.slice(0, 300)}`);
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers a skipped request with an error that names the limit (a notification gets none). */
  private refuse(head: string, tail: string, bytes: number): void {
    const mib = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
    const id = requestIdOf(head, tail);
    this.options.warn?.(
      `refused a request of ${mib(bytes)}${id === undefined ? " (no id found: not answered)" : ""}: over the ${mib(this.limit)} limit`,
    );
    if (id === undefined) return;
    const message = `Request too large: ${mib(bytes)} is over scalpel's input limit of ${mib(this.limit)} for one request (maximum request size); it was not run. Send less in one call: write a large file in parts (create_text_file with the first part, then replace_content or insert_after_symbol for the rest).`;
    void this.send({ jsonrpc: "2.0", id, error: { code: invalidRequest, message } } as unknown as M);
  }
}

function lastBytes(buf: Buffer): Buffer {
  return buf.length <= keptBytes ? buf : buf.subarray(buf.length - keptBytes);
}

const idValue = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":…` or `{"id":…`: how most clients begin a request. */
const idAtStart = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${idValue}`);
/**
 * `…,"id":…}` at the very end: how the TypeScript SDK ends one (`{...request, jsonrpc, id}`). An
 * `"id"` inside the params is followed by at least two closing braces, so it is not taken.
 */
const idAtEnd = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${idValue}\s*\}\s*$`);

/** The id of a request seen only by its first and last bytes, when it can be found for sure. */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  const found = idAtStart.exec(head) ?? idAtEnd.exec(tail);
  if (!found) return undefined;
  try {
    return JSON.parse(found[1]!) as string | number;
  } catch {
    return undefined;
  }
}
