/**
 * The state of one MCP session: options and the active project. Activating another project stops
 * the servers of the previous one.
 */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { adaptersFor } from "../language-servers/index.js";
import { AppError } from "./errors.js";
import type { Logger } from "./log.js";
import { loadProjectConfig } from "./project/config.js";
import { detectLanguages } from "./project/detect.js";
import { Project } from "./project/project.js";
import { ServerPool } from "./project/server-pool.js";

export interface WorkspaceOptions {
  readOnly: boolean;
  /** Base for relative project paths. */
  cwd: string;
}

export class Workspace {
  /** Why the project given at start-up could not be activated, for the calls that follow. */
  startupError: string | undefined;

  private current: Project | null = null;
  private detected: string[] = [];
  private readonly activationListeners: Array<(project: Project) => void> = [];

  constructor(
    readonly options: WorkspaceOptions,
    readonly log: Logger,
  ) {}

  get project(): Project | null {
    return this.current;
  }

  get languages(): string[] {
    return this.detected;
  }

  /** Runs after each activation of a new project (the server re-checks which tools it allows). */
  onActivate(listener: (project: Project) => void): void {
    this.activationListeners.push(listener);
  }

  /**
   * `startServers: false` leaves every server to start when a tool first needs it: a one-shot
   * terminal run of a memory or file tool should not boot rust-analyzer.
   */
  async activate(projectArg: string, opts: { startServers?: boolean } = {}): Promise<Project> {
    const root = await resolveRoot(projectArg, this.options.cwd);
    const config = await loadProjectConfig(root);
    // Activating the active project again keeps its servers, unless project.yml changed since.
    if (this.current?.root === root && JSON.stringify(this.current.config) === JSON.stringify(config)) {
      return this.current;
    }
    await this.current?.pool.shutdown();
    const project = new Project({ root, readOnly: this.options.readOnly, config }, this.log.child("project"));
    // Servers declared in project.yml join (or replace) the built-in adapters for every tool.
    const adapters = adaptersFor(config.language_servers);
    const found = await detectLanguages(root, project.ignore, adapters);
    this.detected = config.languages ?? found.map((f) => f.language);
    project.pool = new ServerPool(root, adapters, this.log.child("lsp"));
    this.current = project;
    this.startupError = undefined;
    for (const listener of this.activationListeners) listener(project);
    for (const language of opts.startServers === false ? [] : this.detected) {
      try {
        project.pool.start(language);
      } catch (error) {
        this.log.warn(`cannot start ${language} server`, error instanceof Error ? error.message : error);
      }
    }
    return project;
  }

  async shutdown(): Promise<void> {
    await this.current?.pool.shutdown();
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
