/** Builds the record of one activated project (project.ts) from its root, config and trust. */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { adaptersFor } from "../../language-servers/index.js";
import { defaultConfig, type ProjectConfig, splitSecretAllowances } from "../config/project-config.js";
import { type Trust, trustOf } from "../config/trust.js";
import type { Logger } from "../core/log.js";
import { EditJournal } from "../edits/journal.js";
import { IgnoreRules, walkFiles } from "../files/ignore.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import { Sandbox } from "../security/sandbox.js";
import { SecretGate } from "../security/secret-gate.js";
import { type EnclosingSecrets, SecretRules } from "../security/secrets.js";
import { ServerPool } from "../servers/server-pool.js";
import { SymbolService } from "../symbols/service.js";
import type { Project } from "./project.js";

export interface ProjectOptions {
  /** Absolute, realpath'd project root. */
  root: string;
  /** Read-only because the command line said so (the config can only add to it). */
  readOnly: boolean;
  config?: ProjectConfig;
  /** Whether the user trusts the project (src/config/trust.ts); untrusted when not given. */
  trust?: Trust;
  /** Secret patterns of projects that enclose this one (the workspace finds them). */
  enclosingSecrets?: readonly EnclosingSecrets[];
  /** The language adapters; by default the built-in ones and the declared ones trust allows. */
  adapters?: readonly LanguageAdapter[];
  /** A pool other than one over `adapters` (a test's recording stand-in). */
  pool?: ServerPool;
}

/** `parent`: the session's logger; the project logs as its `project` child, its servers as `lsp`. */
export function openProject(options: ProjectOptions, parent: Logger): Project {
  const log = parent.child("project");
  const config = options.config ?? defaultConfig;
  const root = options.root;
  const trust = options.trust ?? trustOf("untrusted");
  const readOnly = options.readOnly || config.read_only;
  // An untrusted repository's config may add secret patterns, never un-hide a default secret:
  // `secrets: ["!.env*"]` written by the repository (or by an agent) must not open `.env`.
  const { denies, allowances } = splitSecretAllowances(config.secrets);
  const secrets = new SecretRules(trust.trusted ? config.secrets : denies, options.enclosingSecrets);
  // The sandbox owns the secret rule: no checked path is ever minted for a secret file.
  const sandbox = new Sandbox(root, secrets);
  // A declared server's ignored directories (a Python .venv, say) are ignored like built-in ones.
  const serverDirs = Object.values(config.language_servers).flatMap((ls) =>
    ls.ignored_dirs.map((d) => `${d}/`),
  );
  const ignore = new IgnoreRules(root, [...config.ignored_paths, ...serverDirs]);
  // Servers declared in project.yml join (or replace) the built-in adapters for every tool, once
  // the project is trusted; until then every adapter runs nothing of the repository.
  const adapters =
    options.adapters ??
    adaptersFor(config.language_servers, trust, { root, backend: config.typescript_backend });
  const pool = options.pool ?? new ServerPool(root, adapters, parent.child("lsp"));
  const symbols = new SymbolService({ root, sandbox, ignore, pool, readOnly, log });
  if (existsSync(join(root, ".scalpel", "journal"))) {
    log.warn(
      "the repository holds .scalpel/journal/: it is ignored (scalpel's undo journal lives per user in $SCALPEL_HOME/state/, and only edits made through scalpel can be undone)",
    );
  }
  return {
    root,
    name: config.name ?? basename(root),
    readOnly,
    sandbox,
    ignore,
    secrets,
    secretGate: new SecretGate(
      {
        root,
        holdsSecret: (rel) => sandbox.holdsSecret(rel),
        files: (maxFiles, signal) =>
          walkFiles(root, ".", ignore, {
            skipIgnored: true,
            keepIgnoredFile: (rel) => sandbox.holdsSecret(rel),
            maxFiles,
            signal,
          }),
      },
      log.child("secret-gate"),
    ),
    journal: new EditJournal(sandbox, { log: log.child("journal") }),
    pool,
    symbols,
    config,
    trust,
    ignoredSecretAllowances: trust.trusted ? [] : allowances,
    log,
  };
}
