/**
 * `scalpel mcp --http PORT`: MCP over Streamable HTTP. Unlike stdio, anything that can reach the
 * port can talk to it, so every request passes three gates before the SDK sees it:
 * - `Host` must name the address we listen on (a DNS-rebinding page reaches 127.0.0.1 under its
 *   own host name, which fails here);
 * - `Origin`, when a browser sends one, must be that same address;
 * - `Authorization: Bearer <token>`, compared in constant time.
 * Each MCP session gets its own engine (`attach`): by default a connection to the per-user daemon
 * (`relayEngine`: the daemon serves it as it serves a stdio session, over the projects every session
 * shares), or with --no-daemon a Workspace of its own in this process (`workspaceEngine`: own
 * project, own language servers, started when a tool first needs one, never by `initialize`).
 * Closing a session, or leaving it idle past `idleMs`, ends it (in-process: stops its servers; on
 * the daemon: lets go of its share). At most `maxSessions` live at once: an in-process session may
 * hold a language server per language (12 bare sessions on the small example took the machine
 * from 1.2 to 2.8 GB), so the next `initialize` is refused with 429 and what to do.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough, Writable } from "node:stream";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "./core/errors.js";
import type { Logger } from "./core/log.js";
import { createServer } from "./server.js";
import type { Workspace } from "./workspace/workspace.js";

/** What serves one HTTP session's messages; `close` ends it (its servers, or its daemon share). */
export interface SessionEngine {
  close(): Promise<void>;
}

/** Connects a new session's transport to its engine, before the transport sees its first request. */
export type AttachEngine = (transport: StreamableHTTPServerTransport) => Promise<SessionEngine>;

/** In-process (--no-daemon): a workspace of the session's own, its servers stopped with it. */
export function workspaceEngine(newWorkspace: () => Promise<Workspace>, log: Logger): AttachEngine {
  return async (transport) => {
    const workspace = await newWorkspace();
    await createServer({ workspace, log }).connect(transport);
    return { close: () => workspace.shutdown() };
  };
}

/** A relay of newline-delimited JSON-RPC to the daemon (daemon/client.ts: openRelay), running. */
export interface StreamRelay {
  run(): Promise<void>;
}

/**
 * Through the daemon: the session's messages go line by line to a relay of their own (the same
 * relay as a stdio session's, so a daemon lost mid-call answers that call with an error and the next
 * one starts a new daemon), and the daemon's lines come back to the transport. A notification that
 * carries a request's progress token goes on that request's stream; others on the session's
 * listening stream. Null from `openRelay`: no daemon could be reached, `fallback` serves the session.
 */
export function relayEngine(
  openRelay: (input: NodeJS.ReadableStream, output: NodeJS.WritableStream) => Promise<StreamRelay | null>,
  fallback: AttachEngine,
  log: Logger,
): AttachEngine {
  return async (transport) => {
    const input = new PassThrough();
    const requestOf = new Map<unknown, RequestId>();
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        let message: JSONRPCMessage;
        try {
          message = JSON.parse(chunk.toString("utf8")) as JSONRPCMessage;
        } catch {
          done();
          return;
        }
        const token = (message as { params?: { progressToken?: unknown } }).params?.progressToken;
        const related = token === undefined ? undefined : requestOf.get(token);
        transport
          .send(message, related === undefined ? undefined : { relatedRequestId: related })
          // The request's stream is gone (its client left): nobody is waiting for this message.
          .catch((e: unknown) => log.debug(`HTTP session message dropped: ${String(e)}`))
          .finally(() => done());
      },
    });
    const relay = await openRelay(input, output);
    if (!relay) return fallback(transport);
    transport.onmessage = (message) => {
      const request = message as { id?: RequestId; params?: { _meta?: { progressToken?: unknown } } };
      const token = request.params?._meta?.progressToken;
      if (request.id !== undefined && token !== undefined) requestOf.set(token, request.id);
      input.write(`${JSON.stringify(message)}\n`);
    };
    await transport.start();
    const running = relay.run();
    return {
      close: async () => {
        input.end();
        await running;
      },
    };
  };
}

export interface HttpOptions {
  port: number;
  /** Address to bind; loopback unless the user says otherwise. */
  host: string;
  token: string;
  /** The engine of each new MCP session (activating the start-up project, if any). */
  attach: AttachEngine;
  /** Sessions with no request for this long are closed and their servers stopped. */
  idleMs: number;
  /** Sessions open at once; the next initialize gets 429. */
  maxSessions: number;
  log: Logger;
}

export interface HttpHandle {
  readonly port: number;
  readonly sessions: number;
  close(): Promise<void>;
}

/** JSON-RPC bodies above this are refused with 413 before they are parsed. */
export const maxHttpBodyBytes = 16 * 1024 * 1024;
const tooLarge = `The request body is larger than ${maxHttpBodyBytes / 1024 / 1024} MiB; send smaller arguments.`;

interface Session {
  transport: StreamableHTTPServerTransport;
  engine: SessionEngine;
  lastSeen: number;
  /**
   * Requests of this session still being answered: a session is idle only when none is. A call
   * that ran longer than the idle bound (a cold project on a loaded machine) was cut off with its
   * session, and its client waited for an answer that never came.
   */
  inFlight: number;
}

const loopbackNames = ["127.0.0.1", "localhost", "[::1]"];

function allowedHosts(host: string, port: number): Set<string> {
  const bound = host.includes(":") ? `[${host}]` : host;
  const names = bound === "127.0.0.1" || bound === "[::1]" || bound === "localhost" ? loopbackNames : [bound];
  return new Set(names.map((n) => `${n}:${port}`));
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice("Bearer ".length).trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The request body as JSON, or why not; never reads more than `maxHttpBodyBytes`. */
async function readJsonBody(
  req: IncomingMessage,
): Promise<{ body: unknown } | { status: number; message: string }> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxHttpBodyBytes) return { status: 413, message: tooLarge };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxHttpBodyBytes) return { status: 413, message: tooLarge };
    chunks.push(chunk as Buffer);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { status: 400, message: "The request body is not valid JSON." };
  }
}

export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const { log } = options;
  const sessions = new Map<string, Session>();
  let opening = 0;
  let hosts = new Set<string>();

  const closeSession = async (id: string, why: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    log.info(`HTTP session closed (${why}); stopping its language servers`);
    await session.transport.close().catch(() => undefined);
    await session.engine.close().catch((e: unknown) => log.warn("session shutdown failed", e));
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // Counted against the cap from now until it is a session (or has failed), never twice.
    opening++;
    let counted = true;
    const settle = () => {
      if (counted) opening--;
      counted = false;
    };
    try {
      await startSession(req, res, body, settle);
    } finally {
      settle();
    }
  };

  const startSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    settle: () => void,
  ): Promise<void> => {
    let engine: SessionEngine | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        if (engine) sessions.set(id, { transport, engine, lastSeen: Date.now(), inFlight: 0 });
        settle();
      },
    });
    try {
      engine = await options.attach(transport);
    } catch (error) {
      // No engine for this session (--daemon and no daemon): the client is told why and what to do,
      // not a bare 500. AppError messages are written for the user and name no host path.
      if (!(error instanceof AppError)) throw error;
      log.warn(`HTTP session refused: ${error.message}`);
      return refuse(res, 503, `${error.message} (${error.code})`, { "Retry-After": "10" });
    }
    const attached = engine;
    // After the engine's own (an in-process McpServer's connect set one).
    const engineOnClose = transport.onclose;
    transport.onclose = () => {
      engineOnClose?.();
      const id = transport.sessionId;
      if (id !== undefined) void closeSession(id, "closed by the client");
      else void attached.close();
    };
    await transport.handleRequest(req, res, body);
    // An initialize that failed leaves no session behind, nor its servers.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await attached.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hosts.has(req.headers.host ?? "")) return refuse(res, 403, "Host not allowed.");
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.has(origin.replace(/^https?:\/\//, ""))) {
      return refuse(res, 403, "Origin not allowed.");
    }
    if (!bearerMatches(req.headers.authorization, options.token)) {
      return refuse(res, 401, "A bearer token is required (Authorization: Bearer <token>).", {
        "WWW-Authenticate": 'Bearer realm="scalpel"',
      });
    }
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp")
      return refuse(res, 404, "The MCP endpoint is /mcp.");
    const id = req.headers["mcp-session-id"];
    const session = typeof id === "string" ? sessions.get(id) : undefined;
    let body: unknown;
    if (req.method === "POST") {
      const read = await readJsonBody(req);
      if ("status" in read) return refuse(res, read.status, read.message);
      body = read.body;
    }
    if (session) {
      session.lastSeen = Date.now();
      // A POST's response stays open until its answer is written (handleRequest may return before,
      // with an event stream): the request is in flight until then. A GET is the client's listening
      // stream, open for the session's whole life: it keeps nothing alive.
      if (req.method === "POST") {
        session.inFlight++;
        res.once("close", () => {
          session.inFlight--;
          session.lastSeen = Date.now();
        });
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (id !== undefined) return refuse(res, 404, "Unknown or expired session; initialize a new one.");
    if (req.method === "POST" && isInitializeRequest(body)) {
      // Sessions being opened count too: 30 initialize requests at once must not all get in.
      if (sessions.size + opening >= options.maxSessions) {
        const idleMin = Math.round(options.idleMs / 60_000);
        return refuse(
          res,
          429,
          `scalpel is serving ${options.maxSessions} sessions, its limit (SCALPEL_HTTP_MAX_SESSIONS). Close one you no longer need (DELETE /mcp with its Mcp-Session-Id header) or wait until one has been idle for ${idleMin} min, then initialize again.`,
          { "Retry-After": "60" },
        );
      }
      return openSession(req, res, body);
    }
    refuse(res, 400, "No session: the first request must be initialize.");
  };

  const server = createHttpServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log.error("HTTP request failed", e);
      refuse(res, 500, "Internal error.");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(options.host, port);

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions)
        if (s.inFlight === 0 && now - s.lastSeen > options.idleMs) void closeSession(id, "idle");
    },
    Math.max(1000, Math.min(60_000, options.idleMs / 4)),
  );
  sweep.unref();

  return {
    port,
    get sessions() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map((id) => closeSession(id, "server stopping")));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
