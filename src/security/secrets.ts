/**
 * Files that hold credentials. Tools never read, search or diff them; listing their names is fine
 * (an agent should know `.env` exists, just not what is in it).
 *
 * Patterns are globs. One without `/` matches any path segment (so a matching directory makes
 * everything below it secret); one with `/` matches the project-relative path or a prefix of it.
 * A pattern starting with `!` allows what the deny patterns would catch; that is how project config
 * opts a file back in. Deny patterns (built-in and the project's) match case-insensitively, so `.ENV`
 * and `ID_RSA` are caught on any file system; `!pattern`s match exactly as written, so an allow can
 * never re-open more than it names. These rules only answer "is it secret?"; the sandbox (`sandbox.ts`) is the one
 * place that acts on the answer.
 */
import picomatch from "picomatch";

export const defaultSecretPatterns: readonly string[] = [
  ".env*",
  "*.pem",
  "*.key",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  // These commonly carry registry or host tokens next to harmless settings; too risky to show.
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".git-credentials",
  // Remote URLs with tokens, and `core.fsmonitor`/`core.sshCommand` an agent has no reason to read.
  "**/.git/config",
  "**/.aws/credentials",
  "**/.docker/config.json",
  "**/.kube/config",
  "kubeconfig",
  ".yarnrc.yml",
  "credentials.json",
  "*.tfvars",
  "*.tfvars.json",
  ".pgpass",
  ".htpasswd",
  "secrets.yml",
  "secrets.yaml",
];

/**
 * Templates that are committed on purpose and only name the variables; agents need them to
 * understand configuration.
 */
export const defaultSecretExceptions: readonly string[] = [".env.example", ".env.sample", ".env.template"];

/** Whether a pattern list matches a path segment (by name) or a path prefix (patterns with `/`). */
type Matcher = (segment: string, prefix: string) => boolean;

/**
 * The deny patterns of a project that encloses this one (a package of a monorepo activated on its
 * own): `prefix` is this project's root relative to the enclosing root. Without them, activating
 * `src/` of a project that declares `secrets: [src/vault/**]` would show the vault.
 */
export interface EnclosingSecrets {
  prefix: string;
  patterns: readonly string[];
}

export class SecretRules {
  private readonly deny: Matcher;
  /** The built-in template names: they cancel a deny only on the same path segment. */
  private readonly templates: Matcher;
  /** The project's `!pattern`s. */
  private readonly allow: Matcher;
  /** Enclosing projects' rules (deny only), with the prefix that maps our paths into theirs. */
  private readonly enclosing: ReadonlyArray<{ prefix: string; rules: SecretRules }>;

  constructor(extraPatterns: string[], enclosing: readonly EnclosingSecrets[] = []) {
    const deny = [...defaultSecretPatterns];
    const allow: string[] = [];
    for (const raw of extraPatterns) {
      const p = raw.trim();
      if (p === "" || p.startsWith("#")) continue;
      if (p.startsWith("!")) allow.push(p.slice(1));
      else deny.push(p);
    }
    this.deny = compile(deny, true);
    this.templates = compile(defaultSecretExceptions, false);
    this.allow = compile(allow, false);
    // Only their denies: an enclosing project can hide more here, never re-open a default secret.
    this.enclosing = enclosing.map((e) => ({
      prefix: e.prefix,
      rules: new SecretRules(e.patterns.filter((x) => !x.trim().startsWith("!"))),
    }));
  }

  /**
   * Whether the project-relative path may not be shown. Every prefix of the path is tried; the
   * deepest prefix a deny pattern matches must be deeper than the deepest one a project `!pattern`
   * matches. So the more specific rule wins: `!src/vault/readme.md` re-opens one file of a denied
   * `src/vault/**` (a glob ending in `**` also matches the directory itself), while a `*.key` file
   * stays secret inside an allowed directory. A built-in template name (`.env.example`) only
   * cancels the deny of its own segment: inside a denied directory it stays secret.
   */
  isSecret(rel: string): boolean {
    if (this.denies(rel)) return true;
    return this.enclosing.some((e) => e.rules.denies(`${e.prefix}/${rel}`));
  }

  private denies(rel: string): boolean {
    const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
    let denied = -1;
    let allowed = -1;
    let prefix = "";
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] ?? "";
      prefix = i === 0 ? segment : `${prefix}/${segment}`;
      if (this.deny(segment, prefix) && !this.templates(segment, prefix)) denied = i;
      if (this.allow(segment, prefix)) allowed = i;
    }
    return denied > allowed;
  }
}

/**
 * One regular expression per kind of pattern: directory walks ask this for every file. Measured on
 * the 10,221 file paths of this repository's node_modules: 195 ms with one picomatch matcher per
 * pattern, 16-20 ms with one alternation.
 */
function compile(patterns: readonly string[], nocase: boolean): Matcher {
  const bySegment: RegExp[] = [];
  const byPrefix: RegExp[] = [];
  for (const pattern of patterns) {
    const anchored = pattern.replace(/^\/+/, "").replace(/\/+$/, "");
    if (anchored === "") continue;
    (pattern.includes("/") ? byPrefix : bySegment).push(picomatch.makeRe(anchored, { dot: true, nocase }));
  }
  const flags = nocase ? "i" : "";
  const segment = union(bySegment, flags);
  const prefix = union(byPrefix, flags);
  return (s, p) => (segment?.test(s) ?? false) || (prefix?.test(p) ?? false);
}

function union(res: readonly RegExp[], flags: string): RegExp | null {
  if (res.length === 0) return null;
  return new RegExp(res.map((r) => `(?:${r.source})`).join("|"), flags);
}
