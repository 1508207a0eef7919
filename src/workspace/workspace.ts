/**
 * The state of one MCP session: options and the active project. Activating another project stops
 * the servers of the previous one.
 */
import { realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { adaptersFor } from "../../language-servers/index.js";
import { isWithin, notAllowedError, refuseForbiddenRoot } from "../config/allowed-roots.js";
import { readProjectConfig, splitSecretAllowances } from "../config/project-config.js";
import { ProjectRegistry } from "../config/registry.js";
import { configDigest, type TrustState, TrustStore, trustOf } from "../config/trust.js";
import { AppError, isAppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { detectLanguages } from "../files/detect-languages.js";
import { openProject } from "../project/open-project.js";
import type { Project } from "../project/project.js";
import type { EnclosingSecrets } from "../security/secrets.js";
import type { ProjectShare, ProjectSource } from "./shared-projects.js";

export interface WorkspaceOptions {
  readOnly: boolean;
  /** Base for relative project paths. */
  cwd: string;
  /**
   * Folders the user named on the command line (`--projects-in`): projects inside them may be
   * activated by path (see src/config/allowed-roots.ts).
   */
  projectsIn?: readonly string[];
  /** Where the user-level registry and trust store live (tests); the defaults under $SCALPEL_HOME otherwise. */
  registry?: ProjectRegistry;
  trustStore?: TrustStore;
  /**
   * Projects shared with other sessions (the daemon, workspace/shared-projects.ts); absent, this
   * workspace opens its projects itself and stops their servers when it leaves them.
   */
  projects?: ProjectSource;
}

/** How an activation was asked for: by the user (the command line) or by a tool call. */
export interface ActivateOptions {
  /**
   * `startServers: false` leaves every server to start when a tool first needs it: a one-shot
   * terminal run of a memory or file tool should not boot rust-analyzer.
   */
  startServers?: boolean;
  /** The user named this project (`--project`): it is allowed for the rest of the session. */
  byUser?: boolean;
  /** With `byUser`: trust it for this session (`--trust`), as long as its project.yml stays the same. */
  trustForSession?: boolean;
}

export class Workspace {
  /** Why the project given at start-up could not be activated, for the calls that follow. */
  startupError: string | undefined;

  private current: Project | null = null;
  /** The hold on the current project when projects are shared. */
  private share: ProjectShare | undefined;
  private detected: string[] = [];
  /** The active project's languages once its walk is done (`languagesDetected`). */
  private detection: Promise<string[]> = Promise.resolve([]);
  /** Stops that walk when the session ends or another project is activated. */
  private detectionAbort = new AbortController();
  private readonly activationListeners: Array<(project: Project) => void> = [];
  /** Roots the user named in this session (`--project`), real paths. */
  private readonly userRoots = new Set<string>();
  /** Roots trusted for this session (`--trust`) → the digest of the project.yml they were trusted with. */
  private readonly sessionTrust = new Map<string, string>();

  constructor(
    readonly options: WorkspaceOptions,
    readonly log: Logger,
  ) {}

  get project(): Project | null {
    return this.current;
  }

  /** The languages known so far: those project.yml lists, else none until the walk is done. */
  get languages(): string[] {
    return this.detected;
  }

  /** The active project's languages, after the walk that counts its files (see `activate`). */
  languagesDetected(): Promise<string[]> {
    return this.detection;
  }

  /** Runs after each activation of a new project (the server re-checks which tools it allows). */
  onActivate(listener: (project: Project) => void): void {
    this.activationListeners.push(listener);
  }

  get registry(): ProjectRegistry {
    return this.options.registry ?? new ProjectRegistry();
  }

  get trustStore(): TrustStore {
    return this.options.trustStore ?? new TrustStore();
  }

  /**
   * The project the user named where the session started (`--project`). One that cannot be
   * activated (a bad project.yml, a missing folder) must not keep the session from starting: the
   * client would only see a dead process. `startupError` tells the calls instead.
   */
  async activateAtStart(
    projectArg: string,
    opts: { trustForSession: boolean; startServers?: boolean },
  ): Promise<void> {
    await this.activate(projectArg, { byUser: true, ...opts }).catch((e: unknown) => {
      this.startupError = isAppError(e) ? e.message : "the project could not be activated";
      this.log.error(`cannot activate ${projectArg}: ${this.startupError}`);
    });
  }

  async activate(projectArg: string, opts: ActivateOptions = {}): Promise<Project> {
    const root = await resolveRoot(projectArg, this.options.cwd);
    refuseForbiddenRoot(root);
    if (opts.byUser) this.userRoots.add(root);
    else if (!(await this.isAllowed(root))) throw notAllowedError();
    const { config, text } = await readProjectConfig(root);
    const digest = configDigest(text);
    if (opts.byUser && opts.trustForSession) this.sessionTrust.set(root, digest);
    const trust = trustOf(await this.trustState(root, digest));
    // Activating the active project again keeps its servers, unless project.yml or its trust
    // changed since (`scalpel trust` in a terminal, then activate_project, starts what trust allows).
    if (
      this.current?.root === root &&
      this.current.trust.state === trust.state &&
      JSON.stringify(this.current.config) === JSON.stringify(config)
    ) {
      // ... and gives a failed server its restart budget back (the way to restart one).
      this.current.pool.renew();
      return this.current;
    }
    await this.leaveCurrent();
    // Servers declared in project.yml join (or replace) the built-in adapters for every tool, once
    // the project is trusted; until then every adapter runs nothing of the repository.
    const adapters = adaptersFor(config.language_servers, trust, {
      root,
      backend: config.typescript_backend,
    });
    const enclosingSecrets = await this.enclosingSecrets(root);
    const open = (readOnly: boolean) => () =>
      openProject({ root, readOnly, config, trust, enclosingSecrets, adapters }, this.log);
    let project: Project;
    if (this.options.projects) {
      // Shared: opened without this session's --read-only (another session may write), which this
      // session's own view of the record adds back; the view is what every call of it sees. The key
      // holds all that shapes the record, so sessions that would open it differently never share.
      const key = JSON.stringify([root, trust.trusted, digest, enclosingSecrets]);
      this.share = this.options.projects.acquire(key, open(false));
      const shared = this.share.project;
      project = this.options.readOnly && !shared.readOnly ? { ...shared, readOnly: true } : shared;
    } else {
      project = open(this.options.readOnly)();
    }
    if (!trust.trusted) {
      this.log.info(
        `project not trusted (${trust.state}): declared servers, repository binaries and build scripts stay off`,
      );
    }
    this.detectionAbort.abort();
    this.detectionAbort = new AbortController();
    this.detected = config.languages ? [...config.languages] : [];
    this.current = project;
    this.startupError = undefined;
    // The walk that counts each language's files runs behind the answer: neither start-up (the
    // client's initialize) nor activate_project waits on a large or deeply nested tree; its end
    // starts the servers of what it found. Tools that list the languages wait for it, and so may
    // the activation listeners (set before they run).
    this.detection = this.detect(project, adapters, opts.startServers !== false, this.detectionAbort.signal);
    // The secret gate's first walk too, so the first answer need not wait for it (400 ms on the
    // 2,277 files of the rxjs 7.8.2 package).
    void project.secretGate.refresh();
    for (const listener of this.activationListeners) listener(project);
    return project;
  }

  private async detect(
    project: Project,
    adapters: Parameters<typeof detectLanguages>[2],
    startServers: boolean,
    signal: AbortSignal,
  ): Promise<string[]> {
    const started = new Set<string>();
    const start = (language: string) => {
      if (!startServers || signal.aborted || this.current !== project || started.has(language)) return;
      started.add(language);
      try {
        project.pool.start(language);
      } catch (error) {
        this.log.warn(`cannot start ${language} server`, error instanceof Error ? error.message : error);
      }
    };
    let languages = project.config.languages ? [...project.config.languages] : [];
    if (!project.config.languages) {
      try {
        // A language's server starts at its first file, not when the whole tree is counted.
        const found = await detectLanguages(project.root, project.ignore, adapters, signal, start);
        languages = found.map((f) => f.language);
      } catch (error) {
        this.log.warn("cannot count the project's files", error instanceof Error ? error.message : error);
      }
    }
    if (signal.aborted || this.current !== project) return languages;
    this.detected = languages;
    // project.yml's languages, or a walk that failed part way: what did not start yet starts now.
    for (const language of languages) start(language);
    return languages;
  }

  /** The --project roots, --projects-in folders and registered projects: these and what lies inside them may be activated. */
  private async allowedRoots(): Promise<string[]> {
    const named = await Promise.all(
      (this.options.projectsIn ?? []).map((p) => realpath(resolve(this.options.cwd, p)).catch(() => null)),
    );
    return [
      ...this.userRoots,
      ...named.filter((p): p is string => p !== null),
      ...(await this.registry.roots().catch(() => [])),
    ];
  }

  private async isAllowed(root: string): Promise<boolean> {
    return isWithin(root, await this.allowedRoots());
  }

  /**
   * The secret patterns of every project.yml above `root`, up to the allowed folder holding it:
   * a package activated on its own keeps the secrets its enclosing project declared. Folders outside
   * what the user allowed are never read.
   */
  private async enclosingSecrets(root: string): Promise<EnclosingSecrets[]> {
    const roots = (await this.allowedRoots()).filter((r) => r !== root);
    const found: EnclosingSecrets[] = [];
    for (let dir = dirname(root); isWithin(dir, roots); dir = dirname(dir)) {
      const loaded = await readProjectConfig(dir).catch(() => null);
      const denies = loaded ? splitSecretAllowances(loaded.config.secrets).denies : [];
      if (denies.length > 0)
        found.push({ prefix: relative(dir, root).split(sep).join("/"), patterns: denies });
      if (dir === dirname(dir)) break;
    }
    return found;
  }

  private async trustState(root: string, digest: string): Promise<TrustState> {
    if (this.sessionTrust.get(root) === digest) return "session";
    return this.trustStore.state(root, digest);
  }

  /** Stops the current project's servers, or lets go of its share (they may serve other sessions). */
  private async leaveCurrent(): Promise<void> {
    if (this.share) {
      this.share.release();
      this.share = undefined;
      return;
    }
    this.current?.secretGate.close();
    await this.current?.pool.shutdown();
  }

  async shutdown(): Promise<void> {
    this.detectionAbort.abort();
    await this.leaveCurrent();
  }
}

async function resolveRoot(projectArg: string, cwd: string): Promise<string> {
  if (projectArg.includes("\0"))
    throw new AppError("invalid_argument", "The project path contains a NUL byte.");
  const candidate = isAbsolute(projectArg) ? projectArg : resolve(cwd, projectArg);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw new AppError(
      "file_not_found",
      `No directory '${projectArg}' exists. Give the project's root directory as an absolute path or relative to where scalpel was started.`,
    );
  }
  const s = await stat(real);
  if (!s.isDirectory()) {
    throw new AppError("invalid_argument", `'${projectArg}' is a file; give the project's root directory.`);
  }
  return real;
}
