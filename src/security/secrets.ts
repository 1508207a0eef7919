/**
 * Files that hold credentials. Tools never read, search or diff them; listing their names is fine
 * (an agent should know `.env` exists, just not what is in it).
 *
 * Patterns are globs. One without `/` matches any path segment (so a matching directory makes
 * everything below it secret); one with `/` matches the project-relative path or a prefix of it.
 * A pattern starting with `!` allows what the deny patterns would catch; that is how project config
 * opts a file back in.
 */
import picomatch from "picomatch";
import { AppError } from "../errors.js";

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
];

/**
 * Templates that are committed on purpose and only name the variables; agents need them to
 * understand configuration.
 */
export const defaultSecretExceptions: readonly string[] = [".env.example", ".env.sample", ".env.template"];

type Matcher = (segment: string, prefix: string) => boolean;

export class SecretRules {
  private readonly deny: Matcher[];
  private readonly allow: Matcher[];

  constructor(extraPatterns: string[]) {
    const deny = [...defaultSecretPatterns];
    const allow = [...defaultSecretExceptions];
    for (const raw of extraPatterns) {
      const p = raw.trim();
      if (p === "" || p.startsWith("#")) continue;
      if (p.startsWith("!")) allow.push(p.slice(1));
      else deny.push(p);
    }
    this.deny = deny.map(compile);
    this.allow = allow.map(compile);
  }

  isSecret(rel: string): boolean {
    const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] ?? "";
      const prefix = segments.slice(0, i + 1).join("/");
      if (this.deny.some((m) => m(segment, prefix)) && !this.allow.some((m) => m(segment, prefix))) {
        return true;
      }
    }
    return false;
  }

  /** Throws `secret_file` for a path that must not be read, searched or changed. */
  assertNotSecret(rel: string): void {
    if (!this.isSecret(rel)) return;
    throw new AppError(
      "secret_file",
      `'${rel}' looks like a file that holds secrets, so scalpel never reads, searches or changes it. If it holds none, allow it in the project config (secret patterns prefixed with '!').`,
    );
  }
}

function compile(pattern: string): Matcher {
  const anchored = pattern.replace(/^\/+/, "").replace(/\/+$/, "");
  const isMatch = picomatch(anchored, { dot: true });
  if (pattern.includes("/")) return (_segment, prefix) => isMatch(prefix);
  return (segment) => isMatch(segment);
}
