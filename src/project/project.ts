/**
 * One activated project, as a plain record: its root, the sandbox every path goes through, ignore
 * and secret rules, the undo journal, the pool of language servers and the symbol service. Built
 * whole by `openProject` (project/open-project.ts); nothing is assigned to it later.
 */

import type { ProjectConfig } from "../config/project-config.js";
import type { Trust } from "../config/trust.js";
import type { Logger } from "../core/log.js";
import type { EditJournal } from "../edits/journal.js";
import type { IgnoreRules } from "../files/ignore.js";
import type { Sandbox } from "../security/sandbox.js";
import type { SecretGate } from "../security/secret-gate.js";
import type { SecretRules } from "../security/secrets.js";
import type { ServerPool } from "../servers/server-pool.js";
import type { SymbolService } from "../symbols/service.js";

export interface Project {
  /** Absolute, realpath'd project root. */
  readonly root: string;
  readonly name: string;
  readonly readOnly: boolean;
  readonly sandbox: Sandbox;
  readonly ignore: IgnoreRules;
  readonly secrets: SecretRules;
  /** What no answer may contain of the secret files' text; the tool runner applies it to every answer. */
  readonly secretGate: SecretGate;
  /** Undo journal, persisted under `.scalpel/journal/`, loaded on first use. */
  readonly journal: EditJournal;
  /** One language server per language, started on demand. */
  readonly pool: ServerPool;
  /**
   * The symbol service: name paths, the persistent index in the user's state folder and its
   * compact table, trees of files in use (symbols/service.ts).
   */
  readonly symbols: SymbolService;
  readonly config: ProjectConfig;
  readonly trust: Trust;
  /** `!pattern` entries of `secrets` left out because the project is not trusted. */
  readonly ignoredSecretAllowances: readonly string[];
  readonly log: Logger;
}
