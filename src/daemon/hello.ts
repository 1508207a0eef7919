/**
 * The one line a client sends on a daemon connection before any MCP byte: which build it is (a
 * daemon of another build refuses it, even though the socket's name should already keep them apart)
 * and what the session is (its options and project), or a control command (status, stop). The
 * daemon answers one line too; after that the connection carries the MCP session, newline-delimited
 * JSON-RPC both ways, as on stdio.
 */
import type { Socket } from "node:net";

export interface SessionHello {
  scalpelDaemon: 1;
  version: string;
  build: string;
  kind: "session";
  cwd: string;
  readOnly: boolean;
  /** `--project`: activated by the user (allowed for the session). */
  project?: string;
  /** `--trust` of that project. */
  trust: boolean;
  projectsIn: string[];
  /**
   * The project a tool call activated before the daemon the session was on went away: activated
   * again, as a tool call would (the same checks).
   */
  activated?: string;
}

export interface ControlHello {
  scalpelDaemon: 1;
  version: string;
  build: string;
  kind: "status" | "stop";
}

export type Hello = SessionHello | ControlHello;

export interface DaemonStatus {
  pid: number;
  version: string;
  build: string;
  /** The key of the environment it was started with (daemon/env-key.ts). */
  environment: string;
  sessions: number;
  rssBytes: number;
  /** Every process below the daemon (its language servers), summed. */
  serversRssBytes: number;
  projects: Array<{ name: string; sessions: number; servers: string[] }>;
}

/** The daemon's answer to a hello. */
export type HelloAnswer = { ok: true; pid: number; status?: DaemonStatus } | { ok: false; refused: string };

/** A hello line is small: a longer first line is no client of ours. */
const maxLineBytes = 64 * 1024;

/**
 * The first line of `socket`, parsed; the bytes after it are put back for the MCP transport, and
 * the socket is left paused. Rejects on a line that is too long, no line, or not JSON.
 */
export function readFirstLine(socket: Socket, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error("no hello in time")), timeoutMs);
    const done = (error: Error | null, value?: unknown) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("error", onClose);
      if (error) reject(error);
      else resolve(value);
    };
    const onClose = () => done(new Error("closed before its first line"));
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(10);
      if (nl < 0) {
        if (buffered.length > maxLineBytes) done(new Error("first line too long"));
        return;
      }
      socket.pause();
      const rest = buffered.subarray(nl + 1);
      if (rest.length > 0) socket.unshift(rest);
      try {
        done(null, JSON.parse(buffered.subarray(0, nl).toString("utf8")));
      } catch {
        done(new Error("first line is not JSON"));
      }
    };
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.once("error", onClose);
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  socket.write(`${JSON.stringify(value)}\n`);
}
