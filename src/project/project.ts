/**
 * One activated project: its root, the sandbox every path goes through, ignore and secret rules,
 * and the pool of language servers serving it.
 */
import { basename } from "node:path";
import { EditJournal } from "../edits/journal.js";
import type { Logger } from "../log.js";
import { Sandbox } from "../security/sandbox.js";
import { SecretRules } from "../security/secrets.js";
import { IgnoreRules } from "./ignore.js";
import type { ServerPool } from "./server-pool.js";

export interface ProjectOptions {
  /** Absolute, realpath'd project root. */
  root: string;
  name?: string;
  readOnly: boolean;
  /** Extra gitignore-style patterns from project config. */
  ignoredPaths?: string[];
  /** Extra secret deny patterns from project config. */
  secrets?: string[];
}

export class Project {
  readonly root: string;
  readonly name: string;
  readonly readOnly: boolean;
  readonly sandbox: Sandbox;
  readonly ignore: IgnoreRules;
  readonly secrets: SecretRules;
  readonly journal = new EditJournal();
  pool!: ServerPool;

  constructor(
    options: ProjectOptions,
    readonly log: Logger,
  ) {
    this.root = options.root;
    this.name = options.name ?? basename(options.root);
    this.readOnly = options.readOnly;
    this.sandbox = new Sandbox(options.root);
    this.ignore = new IgnoreRules(options.root, options.ignoredPaths ?? []);
    this.secrets = new SecretRules(options.secrets ?? []);
  }

  /** Tells every language server that scalpel wrote these files, so they re-read them. */
  async notifyWritten(absPaths: string[]): Promise<void> {
    await this.pool.didWrite(absPaths);
  }
}
