/**
 * The only place that writes to the console. Everything goes to stderr because stdout belongs to
 * the MCP transport in stdio mode.
 */
type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const env = (process.env.SCALPEL_LOG ?? "info").toLowerCase();
  return env in order ? order[env as Level] : order.info;
}

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
  child(scope: string): Logger;
}

function make(scope: string): Logger {
  const emit = (level: Level, msg: string, extra?: unknown) => {
    if (order[level] < threshold()) return;
    const tail = extra === undefined ? "" : ` ${formatExtra(extra)}`;
    console.error(`[scalpel${scope ? `:${scope}` : ""}] ${level} ${msg}${tail}`);
  };
  return {
    debug: (m, e) => emit("debug", m, e),
    info: (m, e) => emit("info", m, e),
    warn: (m, e) => emit("warn", m, e),
    error: (m, e) => emit("error", m, e),
    child: (s) => make(scope ? `${scope}:${s}` : s),
  };
}

function formatExtra(extra: unknown): string {
  if (extra instanceof Error) return extra.stack ?? extra.message;
  if (typeof extra === "string") return extra;
  try {
    return JSON.stringify(extra);
  } catch {
    return String(extra);
  }
}

export const log: Logger = make("");
