/**
 * What of a secret file's text no answer may repeat: the strings a language server or a compiler
 * could carry out of it into another file's answer (a literal type in hover text or a diagnostic,
 * `const k: "sk_live_…"`), and the values and keys of a credentials file.
 *
 * - In every file: string literal contents of 6 characters or more (not import specifiers).
 * - In files that are not source code (`.env`, `.npmrc`, keys, YAML, JSON…): also the value of each
 *   `name = value` / `name: value` line, and any run of 20+ key-alphabet characters with a digit
 *   (tokens, base64 key lines).
 * Source code's identifiers are left alone: a secret file's exported names are what other files
 * import, and hiding them would break every name path that mentions them.
 */

/** Shorter strings are too common to mean anything (and would blank ordinary words). */
export const minNeedle = 6;
const maxNeedle = 4096;

const codeExtensions = new Set(
  "ts tsx mts cts js jsx mjs cjs py pyi rs go dart java kt kts swift c h cc cpp hpp cs rb php scala lua".split(
    " ",
  ),
);

export function isSourceCode(rel: string): boolean {
  const dot = rel.lastIndexOf(".");
  return dot > rel.lastIndexOf("/") && codeExtensions.has(rel.slice(dot + 1).toLowerCase());
}

const literal = /(["'`])((?:\\.|(?!\1)[^\\\r\n])+)\1/g;
/** `from "x"`, `import "x"`, `require("x")`, `import("x")`: module names, not data. */
const specifierBefore = /(?:\bfrom|\bimport|\brequire\(|\bimport\()\s*$/;
const assignment = /^[ \t]*(?:export[ \t]+)?[A-Za-z_][\w.-]*[ \t]*[=:][ \t]*(.+?)[ \t]*$/gm;
const token = /[A-Za-z0-9+/=_.-]{20,}/g;

/**
 * Whether a string could be a credential rather than a setting: `.env` files also hold
 * `NODE_ENV=development` and `DB_HOST=localhost`, and blanking those words in every answer would
 * hide ordinary code. A needle mixes two kinds of character (lower, upper, digit, symbol) or is
 * long; whitespace counts as none.
 */
export function looksSecret(s: string): boolean {
  if (s.length < minNeedle || new Set(s).size < 4) return false;
  if (s.length >= 16) return true;
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^\sA-Za-z0-9]/].filter((k) => k.test(s)).length;
  return kinds >= 2;
}

/** The needles of one secret file's text (`rel` decides whether it is source code). */
export function secretNeedles(rel: string, text: string): string[] {
  const out = new Set<string>();
  const add = (raw: string) => {
    const s = raw.trim().replace(/^["']|["']$/g, "");
    if (looksSecret(s)) out.add(s.slice(0, maxNeedle));
  };
  for (const m of text.matchAll(literal)) {
    const before = text.slice(Math.max(0, m.index - 12), m.index);
    if (!specifierBefore.test(before)) add(m[2] ?? "");
  }
  if (!isSourceCode(rel)) {
    for (const m of text.matchAll(assignment)) add((m[1] ?? "").replace(/\s+#.*$/, ""));
    for (const m of text.matchAll(token)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) add(m[0]);
  }
  return [...out];
}
