/**
 * `.scalpel/project.yml`: per-project settings, parsed with `yaml` and checked with zod. A bad file
 * is an error that names the YAML path of the bad key; unknown keys are errors too, because a
 * misspelt `read_only` silently ignored would be worse than a refusal.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { z } from "zod";
import { AppError, isAppError } from "../core/errors.js";
import { languageServerConfigSchema } from "../languages/declared-server.js";
import { protectedDirs } from "../security/refusals.js";

export const configFile = ".scalpel/project.yml";

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes("..") && !p.includes("\0"), {
    message: "must be a path inside the project (relative, no '..')",
  });

const vcsDirs = new Set(protectedDirs.filter((d) => d !== ".scalpel"));

/**
 * Where memories may live: not inside version control's own folders (`memory_dir: .git/hooks` made
 * write_memory write into `.git/`, whose files decide what runs), nor in `.scalpel/` itself or
 * scalpel's state folders there. Checked in any letter case: case-insensitive file systems.
 */
const memoryDir = relativePath.refine(
  (p) => {
    const parts = p
      .toLowerCase()
      .split(/[\\/]/)
      .filter((s) => s !== "" && s !== ".");
    if (parts.some((s) => vcsDirs.has(s))) return false;
    if (parts[0] !== ".scalpel") return true;
    return parts.length > 1 && parts[1] !== "cache" && parts[1] !== "journal";
  },
  {
    message:
      "must not be inside a version-control folder (.git, .hg, …), nor .scalpel itself or its cache/journal",
  },
);

export const projectConfigSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  /** Overrides language detection. */
  languages: z.array(z.string().min(1)).optional(),
  /** gitignore-style patterns skipped by listing, searching and symbol tools. */
  ignored_paths: z.array(z.string().min(1)).default([]),
  read_only: z.boolean().default(false),
  memory_dir: memoryDir.default(".scalpel/memories"),
  /** Extra secret patterns (gitignore syntax); `!pattern` allows a default-denied file (trusted projects only). */
  secrets: z.array(z.string().min(1)).default([]),
  /** Shown to the agent at activation (as untrusted repository text until the user trusts the project). */
  initial_prompt: z.string().optional(),
  /**
   * Which server answers for TypeScript: TypeScript 7's native `tsc --lsp` or tsserver (through
   * typescript-language-server). Unset: native when the project depends on TypeScript ≥ 7.
   */
  typescript_backend: z.enum(["native", "tsserver"]).optional(),
  /** Servers declared without code, by language id. */
  language_servers: z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), languageServerConfigSchema).default({}),
});
export type ProjectConfig = z.infer<typeof projectConfigSchema>;

export const defaultConfig: ProjectConfig = projectConfigSchema.parse({});

function yamlPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(top level)" : path.map(String).join(".");
}

export function describeConfigIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") {
        const where = issue.path.length > 0 ? ` under ${yamlPath(issue.path)}` : "";
        return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")}${where}`;
      }
      return `${yamlPath(issue.path)}: ${issue.message}`;
    })
    .join("; ");
}

/** Parses the text of a project.yml; `display` names the file in messages. */
export function parseProjectConfig(text: string, display = configFile): ProjectConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (e) {
    const where = e instanceof YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line}` : "";
    throw new AppError(
      "invalid_config",
      `${display} is not valid YAML${where}. Fix the syntax and activate the project again.`,
    );
  }
  const parsed = projectConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      "invalid_config",
      `${display} is invalid: ${describeConfigIssues(parsed.error)}. Known keys: ${Object.keys(projectConfigSchema.shape).join(", ")}.`,
    );
  }
  return parsed.data;
}

/**
 * Over this size project.yml is refused unparsed: a 60 MB file took 44 s and 2.5 GB to parse
 * (yaml 2); real ones are a few hundred bytes.
 */
export const maxConfigBytes = 256 * 1024;

/** The config and the exact bytes it was parsed from (null: no project.yml), read once. */
export interface LoadedConfig {
  config: ProjectConfig;
  text: string | null;
}

function tooLarge(size: number): AppError {
  return new AppError(
    "invalid_config",
    `${configFile} is ${size} bytes, over the limit of ${maxConfigBytes}; a project config is a few settings. Shorten it.`,
  );
}

export async function readProjectConfig(root: string): Promise<LoadedConfig> {
  const file = join(root, configFile);
  let bytes: Buffer;
  try {
    // Sized before it is read, so a huge file is never loaded.
    const { size } = await stat(file);
    if (size > maxConfigBytes) throw tooLarge(size);
    bytes = await readFile(file);
  } catch (e) {
    if (isAppError(e)) throw e;
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { config: defaultConfig, text: null };
    throw new AppError(
      "invalid_config",
      `${configFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"}).`,
    );
  }
  // It may have grown between the two calls.
  if (bytes.length > maxConfigBytes) throw tooLarge(bytes.length);
  const text = bytes.toString("utf8");
  return { config: parseProjectConfig(text), text };
}

/** The project's config, or the defaults when it has no project.yml. */
export async function loadProjectConfig(root: string): Promise<ProjectConfig> {
  return (await readProjectConfig(root)).config;
}

/**
 * The `secrets` entries that un-hide a file (`!pattern`): an untrusted project's config may add
 * secret patterns but not weaken the defaults, so these are left out (and reported) until the user
 * trusts the project. Same reading as SecretRules: trimmed, a leading `!`.
 */
export function splitSecretAllowances(secrets: readonly string[]): {
  denies: string[];
  allowances: string[];
} {
  const denies: string[] = [];
  const allowances: string[] = [];
  for (const raw of secrets) (raw.trim().startsWith("!") ? allowances : denies).push(raw);
  return { denies, allowances };
}
