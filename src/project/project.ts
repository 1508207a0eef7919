/**
 * One activated project: its root, the sandbox every path goes through, ignore and secret rules,
 * and the pool of language servers serving it.
 */
import { basename } from "node:path";
import { EditJournal } from "../edits/journal.js";
import type { Logger } from "../log.js";
import { Sandbox } from "../security/sandbox.js";
import { type EnclosingSecrets, SecretRules } from "../security/secrets.js";
import { SymbolService } from "../symbols/service.js";
import { defaultConfig, type ProjectConfig, splitSecretAllowances } from "./config.js";
import { IgnoreRules } from "./ignore.js";
import type { ServerPool } from "./server-pool.js";
import { type Trust, trustOf } from "./trust.js";

export interface ProjectOptions {
  /** Absolute, realpath'd project root. */
  root: string;
  /** Read-only because the command line said so (the config can only add to it). */
  readOnly: boolean;
  config?: ProjectConfig;
  /** Whether the user trusts the project (src/project/trust.ts); untrusted when not given. */
  trust?: Trust;
  /** Secret patterns of projects that enclose this one (src/workspace.ts finds them). */
  enclosingSecrets?: readonly EnclosingSecrets[];
}

export class Project {
  readonly root: string;
  readonly name: string;
  readonly readOnly: boolean;
  readonly sandbox: Sandbox;
  readonly ignore: IgnoreRules;
  readonly secrets: SecretRules;
  /** Undo journal, persisted under `.scalpel/journal/`, loaded on first use. */
  readonly journal: EditJournal;
  /**
   * The symbol service: name paths, the persistent index under `.scalpel/cache/symbols/` and its
   * compact table, trees of files in use (symbols/service.ts).
   */
  readonly symbols: SymbolService;
  pool!: ServerPool;

  readonly config: ProjectConfig;
  readonly trust: Trust;
  /** `!pattern` entries of `secrets` left out because the project is not trusted. */
  readonly ignoredSecretAllowances: readonly string[];

  constructor(
    options: ProjectOptions,
    readonly log: Logger,
  ) {
    const config = options.config ?? defaultConfig;
    this.config = config;
    this.root = options.root;
    this.name = config.name ?? basename(options.root);
    this.readOnly = options.readOnly || config.read_only;
    this.trust = options.trust ?? trustOf("untrusted");
    // An untrusted repository's config may add secret patterns, never un-hide a default secret:
    // `secrets: ["!.env*"]` written by the repository (or by an agent) must not open `.env`.
    const { denies, allowances } = splitSecretAllowances(config.secrets);
    this.ignoredSecretAllowances = this.trust.trusted ? [] : allowances;
    this.secrets = new SecretRules(this.trust.trusted ? config.secrets : denies, options.enclosingSecrets);
    // The sandbox owns the secret rule: no checked path is ever minted for a secret file.
    this.sandbox = new Sandbox(options.root, this.secrets);
    this.journal = new EditJournal(this.sandbox, { log: log.child("journal") });
    // A declared server's ignored directories (a Python .venv, say) are ignored like built-in ones.
    const serverDirs = Object.values(config.language_servers).flatMap((ls) =>
      ls.ignored_dirs.map((d) => `${d}/`),
    );
    this.ignore = new IgnoreRules(options.root, [...config.ignored_paths, ...serverDirs]);
    this.symbols = new SymbolService(this);
  }

  /** Tells every language server that scalpel wrote these files, so they re-read them. */
  async notifyWritten(absPaths: string[]): Promise<void> {
    await this.pool.didWrite(absPaths);
  }
}
