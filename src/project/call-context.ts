/**
 * What a service needs of the call it serves: the project, the call's abort signal (its deadline or
 * a cancelled request), a logger and a way to report progress. The tools' context extends it.
 */
import type { Logger } from "../core/log.js";
import type { Project } from "./project.js";

export interface CallContext {
  /** The active project; reading it throws `no_active_project` when there is none. */
  readonly project: Project;
  signal: AbortSignal;
  log: Logger;
  /** Reports progress to the client when it asked for it; a no-op otherwise. */
  progress(message: string, done?: number, total?: number): void;
}
