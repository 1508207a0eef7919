/**
 * Errors a caller can act on. `code` is stable (clients match on it); `message` is one paragraph
 * that says what to do next and never contains host paths or stack traces.
 */
export type ErrorCode =
  | "no_active_project"
  | "invalid_argument"
  | "path_outside_project"
  | "file_not_found"
  | "file_exists"
  | "secret_file"
  | "protected_path"
  | "unsupported_file"
  | "file_read_only"
  | "symbol_not_found"
  | "ambiguous_symbol"
  | "symbol_in_use"
  | "edit_conflict"
  | "no_match"
  | "multiple_matches"
  | "invalid_regex"
  | "pattern_too_slow"
  | "deadline_exceeded"
  | "language_server_unavailable"
  | "request_timeout"
  | "server_crashed"
  | "read_only"
  | "write_failed"
  | "invalid_config"
  | "project_not_allowed"
  | "memory_not_found"
  | "too_large"
  | "unsupported_encoding"
  | "not_supported"
  | "daemon_refused"
  | "daemon_unavailable"
  | "internal";

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
