/**
 * The one output gate for secrets: every tool answer (its structured form, its text, an error's
 * message) passes through `redact` in the tool runner (tools/kit/run.ts), so no tool has to know.
 * The sandbox keeps secret files from being read or shown by path; this catches what leaves them
 * by other ways — a language server's hover of `const k = API_KEY` in an ordinary file answers
 * `const k: "sk_live_…"`, a diagnostic quotes the literal type, an edit's diff or a reference's
 * snippet repeats a value copied from `.env`.
 *
 * What counts as secret text is in secret-needles.ts. The secret files are found by a walk of the
 * tree (dependency and VCS folders and ignored folders skipped; an ignored secret file such as a
 * git-ignored `.env` still counted), at most every `rewalkMs`; the files found are re-checked by
 * size and mtime on every call, so a changed value is gated at once.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { secretNeedles } from "./secret-needles.js";

/** What the gate needs of its project: the secret rule (the sandbox's) and a walk of the tree. */
export interface SecretGateHost {
  readonly root: string;
  /** Whether a project-relative path's content is secret. */
  holdsSecret(rel: string): boolean;
  /**
   * The files of the tree: dependency, VCS and ignored folders skipped, ignored files that
   * `holdsSecret` accepts kept; at most `maxFiles` of them.
   */
  files(maxFiles: number, signal: AbortSignal): AsyncIterable<{ rel: string; isDir: boolean }>;
}

/** What stands in for a secret string in an answer. */
export const redacted = "[secret]";

/**
 * An edit whose new text carries the placeholder would write `[secret]` over the real value: an
 * agent that copies a body it was shown (`k === "[secret]"`) into replace_symbol_body, say.
 * Refused before anything is written, with what to do instead.
 */
export function refuseRedactedText(newTexts: Iterable<string>): void {
  for (const text of newTexts) {
    if (!text.includes(redacted)) continue;
    throw new AppError(
      "invalid_argument",
      `The new text contains ${redacted}, which scalpel shows in place of a value from a secret file: written, it would replace the real value. Nothing was written. Leave the line that holds the value out of the edit (replace a smaller range, or insert beside it), or change the value in the secret file yourself.`,
    );
  }
}

const rewalkMs = 30_000;
const maxSecretFiles = 200;
const maxFileBytes = 1024 * 1024;
const maxNeedles = 5000;
const maxPatternChars = 1024 * 1024;
/** The walk looks at this many files at most (a monorepo's secrets are near its top). */
const maxWalkFiles = 200_000;

interface Known {
  stamp: string;
  needles: string[];
}

export class SecretGate {
  private readonly known = new Map<string, Known>();
  private walkedAt = Number.NEGATIVE_INFINITY;
  private walking: Promise<void> | undefined;
  private pattern: RegExp | null = null;
  /** Stops a walk when the project is closed (its session ended, another project activated). */
  private readonly stop = new AbortController();

  constructor(
    private readonly host: SecretGateHost,
    private readonly log: Logger,
  ) {}

  /**
   * Brings the needles up to date before an answer is gated: the first walk of the tree (started
   * by the activation) is waited for, later calls re-stat the files found and start a new walk in
   * the background when the last is older than `rewalkMs`.
   */
  async refresh(): Promise<void> {
    const stale = Date.now() - this.walkedAt > rewalkMs;
    if (stale && !this.walking) {
      // Not bounded by the calling tool's signal: the walk serves every call, and one cancelled
      // call must not leave the gate half-informed for the next 30 s.
      this.walking = this.walk()
        .catch((e: unknown) =>
          this.log.warn("the secret gate's walk failed", e instanceof Error ? e.message : e),
        )
        .finally(() => {
          this.walking = undefined;
        });
    }
    if (this.walkedAt === Number.NEGATIVE_INFINITY) await this.walking;
    let changed = false;
    for (const rel of [...this.known.keys()]) changed = this.read(rel) || changed;
    if (changed) this.compile();
  }

  /** Stops the walk under way, if any; the needles found so far stay. */
  close(): void {
    this.stop.abort();
  }

  /**
   * A copy of `value` with every secret string replaced, strings at any depth (keys are the
   * tools' own names); `value` itself when the project's secret files hold no secret strings.
   */
  redact<T>(value: T): T {
    const pattern = this.pattern;
    if (!pattern) return value;
    const visit = (v: unknown): unknown => {
      if (typeof v === "string") {
        pattern.lastIndex = 0;
        return pattern.test(v) ? v.replace(pattern, redacted) : v;
      }
      if (Array.isArray(v)) return v.map(visit);
      if (v !== null && typeof v === "object")
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
      return v;
    };
    return visit(value) as T;
  }

  private async walk(): Promise<void> {
    const found = new Set<string>();
    try {
      for await (const entry of this.host.files(maxWalkFiles, this.stop.signal)) {
        if (entry.isDir || !this.host.holdsSecret(entry.rel)) continue;
        found.add(entry.rel);
        if (found.size >= maxSecretFiles) {
          this.log.warn(`more than ${maxSecretFiles} secret files: the secret gate reads the first ones`);
          break;
        }
      }
    } finally {
      this.walkedAt = Date.now();
    }
    for (const rel of this.known.keys()) if (!found.has(rel)) this.known.delete(rel);
    for (const rel of found) this.read(rel);
    this.compile();
  }

  /** Reads one secret file when its size or mtime moved; whether its needles changed. */
  private read(rel: string): boolean {
    const abs = join(this.host.root, rel);
    let stamp = "gone";
    try {
      const st = lstatSync(abs);
      // Only plain files: a link may lead outside the project, where nothing is read.
      stamp = st.isFile() ? `${st.size}:${st.mtimeMs}` : "not a file";
      if (stamp === this.known.get(rel)?.stamp) return false;
      let needles: string[] = [];
      if (st.isFile()) {
        const bytes = readFileSync(abs).subarray(0, maxFileBytes);
        // A binary key store holds no text a language server could quote.
        if (!bytes.subarray(0, 8192).includes(0)) needles = secretNeedles(rel, bytes.toString("utf8"));
      }
      this.known.set(rel, { stamp, needles });
    } catch {
      if (!this.known.has(rel)) return false;
      this.known.delete(rel);
    }
    return true;
  }

  private compile(): void {
    const all = [...new Set([...this.known.values()].flatMap((k) => k.needles))];
    if (all.length > maxNeedles) {
      this.log.warn(
        `the secret files hold ${all.length} secret strings: the gate keeps the ${maxNeedles} longest`,
      );
    }
    // Longest first, so that a needle inside a longer one does not cut the longer one in two.
    const needles: string[] = [];
    let chars = 0;
    for (const n of all.sort((a, b) => b.length - a.length)) {
      // V8 refuses a regular expression past a size; a megabyte of needles is far more than files hold.
      if (needles.length >= maxNeedles || chars + n.length > maxPatternChars) break;
      needles.push(n);
      chars += n.length;
    }
    this.pattern =
      needles.length === 0
        ? null
        : new RegExp(needles.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  }
}
