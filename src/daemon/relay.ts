/**
 * `scalpel mcp --daemon`: the stdio process the MCP host started relays its session to the per-user
 * daemon, line by line both ways; stdout carries only the daemon's MCP lines and the relay's own
 * answers below. It reads each line the host sends just enough to remember what a new daemon would
 * need: the initialize request, the requests still unanswered, the project a tool call activated.
 *
 * When the daemon goes away (killed, crashed), every request it had not answered is answered here
 * at once with an error (a tool call as an error result), never left hanging; the next line starts
 * a new daemon, which gets the session's options and activated project in the hello, and the
 * host's initialize again (under an id of the relay's own, its answer kept from the host).
 */
import type { Socket } from "node:net";
import type { Logger } from "../core/log.js";
import { connectDaemon } from "./connect.js";
import type { SessionHello } from "./hello.js";

export interface RelayOptions {
  hello: SessionHello;
  /** The script that starts scalpel, to start the daemon with. */
  entry: string;
  log: Logger;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

const replayPrefix = "scalpel-relay-";

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls `onLine` with each complete line of a byte stream. A line's chunks are joined once, when
 * its end comes: joined at every chunk, a 10 MiB request in 64 KiB chunks was copied 160 times.
 */
function splitLines(onLine: (line: string) => void): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  return (chunk) => {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
      parts.push(chunk.subarray(from, nl));
      const line = Buffer.concat(parts).toString("utf8").replace(/\r$/, "");
      parts = [];
      from = nl + 1;
      if (line.trim() !== "") onLine(line);
    }
    if (from < chunk.length) parts.push(chunk.subarray(from));
  };
}

const lostMessage =
  "Error (daemon_unavailable): the scalpel daemon stopped before answering this call, so whether it took effect is unknown (an edit may or may not be on disk: read the file before editing it again). Call again: a new daemon starts and the session's project is activated again.";

export class Relay {
  private socket: Socket | null = null;
  private connecting: Promise<void> | null = null;
  /** Lines from the host waiting for a connection. */
  private queue: string[] = [];
  /** Requests sent to the daemon and not yet answered, by their id's JSON. */
  private readonly inFlight = new Map<string, { id: unknown; method: string }>();
  /** activate_project calls in flight → the project they name. */
  private readonly activating = new Map<string, string>();
  private initialize: Message | undefined;
  private initializeSent = false;
  private activated: string | undefined;
  private replays = 0;
  private replayWaiter: { id: string; done: (ok: boolean) => void } | undefined;
  private ended = false;

  constructor(private readonly options: RelayOptions) {}

  /**
   * The first connection (starting a daemon if none answers), before anything is read from the
   * host: false when no daemon could be reached, and the caller may serve the session itself.
   */
  async open(): Promise<boolean> {
    return (await this.dial()) !== null;
  }

  /** Resolves when the host closes the input. */
  run(): Promise<void> {
    const { input } = this.options;
    input.on(
      "data",
      splitLines((line) => this.fromHost(line)),
    );
    void this.ensureConnected();
    return new Promise((resolve) => {
      const end = () => {
        this.ended = true;
        this.socket?.end();
        resolve();
      };
      input.once("end", end);
      input.once("close", end);
    });
  }

  private fromHost(line: string): void {
    this.queue.push(line);
    if (this.socket && !this.connecting) this.flush();
    else void this.ensureConnected();
  }

  private flush(): void {
    const socket = this.socket;
    if (!socket) return;
    for (const line of this.queue.splice(0)) {
      const message = parse(line);
      if (message && typeof message.method === "string" && message.id !== undefined) {
        const key = JSON.stringify(message.id);
        this.inFlight.set(key, { id: message.id, method: message.method });
        if (message.method === "initialize") {
          this.initialize = message;
          this.initializeSent = true;
        }
        const params = message.params as { name?: unknown; arguments?: { project?: unknown } } | undefined;
        if (message.method === "tools/call" && params?.name === "activate_project") {
          const project = params.arguments?.project;
          if (typeof project === "string") this.activating.set(key, project);
        }
      }
      socket.write(`${line}\n`);
    }
  }

  private ensureConnected(): Promise<void> {
    if (this.socket || this.ended) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /**
   * Connects (starting a daemon if none answers) and hands over the queue. A daemon lost again
   * during the hand-over (before the replayed initialize is answered) is tried once more, then the
   * queued requests are answered with the error rather than retried in a loop: the host's next
   * line tries again.
   */
  private async connect(): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const socket = await this.dial();
      if (!socket) break;
      // A new daemon after a lost one: it must see the host's initialize before any other request.
      if (!this.initializeSent || !this.initialize || (await this.replayInitialize(socket))) {
        this.flush();
        return;
      }
    }
    this.answerQueued();
  }

  private async dial(): Promise<Socket | null> {
    const hello: SessionHello = {
      ...this.options.hello,
      ...(this.activated ? { activated: this.activated } : {}),
    };
    let socket: Socket;
    try {
      const connected = await connectDaemon(hello, { start: true, entry: this.options.entry });
      if (!connected) throw new Error("no daemon");
      socket = connected.socket;
    } catch (e) {
      this.options.log.error(
        `cannot reach the scalpel daemon: ${e instanceof Error ? e.message : String(e)}`,
      );
      return null;
    }
    this.socket = socket;
    socket.on(
      "data",
      splitLines((line) => this.fromDaemon(line)),
    );
    socket.on("error", (e) => this.options.log.warn(`daemon connection: ${e.message}`));
    socket.once("close", () => this.daemonGone(socket));
    socket.resume();
    return socket;
  }

  private replayInitialize(socket: Socket): Promise<boolean> {
    const id = `${replayPrefix}${++this.replays}`;
    return new Promise((resolve) => {
      this.replayWaiter = {
        id,
        done: (ok) => {
          this.replayWaiter = undefined;
          if (ok)
            socket.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          resolve(ok);
        },
      };
      socket.write(`${JSON.stringify({ ...this.initialize, id })}\n`);
    });
  }

  private fromDaemon(line: string): void {
    const message = parse(line);
    if (message && message.method === undefined && message.id !== undefined) {
      if (this.replayWaiter && message.id === this.replayWaiter.id) {
        this.replayWaiter.done(message.error === undefined);
        return;
      }
      const key = JSON.stringify(message.id);
      this.inFlight.delete(key);
      const project = this.activating.get(key);
      this.activating.delete(key);
      const result = message.result as { isError?: unknown } | undefined;
      if (project !== undefined && result && result.isError !== true) this.activated = project;
    }
    this.options.output.write(`${line}\n`);
  }

  private daemonGone(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    this.replayWaiter?.done(false);
    if (this.ended) return;
    this.options.log.warn(
      "the scalpel daemon went away; unanswered calls get an error, the next one starts a new daemon",
    );
    for (const { id, method } of this.inFlight.values()) this.answerLost(id, method);
    this.inFlight.clear();
    this.activating.clear();
    if (this.queue.length > 0 && !this.connecting) void this.ensureConnected();
  }

  /** No daemon could be reached: the queued requests are answered with the error, never dropped silently. */
  private answerQueued(): void {
    for (const line of this.queue.splice(0)) {
      const message = parse(line);
      if (message && typeof message.method === "string" && message.id !== undefined)
        this.answerLost(message.id, message.method);
    }
  }

  private answerLost(id: unknown, method: string): void {
    const answer =
      method === "tools/call"
        ? { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: lostMessage }], isError: true } }
        : { jsonrpc: "2.0", id, error: { code: -32603, message: lostMessage } };
    this.options.output.write(`${JSON.stringify(answer)}\n`);
  }
}
