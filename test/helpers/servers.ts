/**
 * Which real language servers this machine has, found the way scalpel finds them, so that e2e
 * tests of a language skip (with the reason printed) only when its server is genuinely missing.
 */
import { findDart } from "../../language-servers/dart.js";
import { findGopls } from "../../language-servers/go.js";
import { findRustAnalyzer } from "../../language-servers/rust-analyzer.js";

/** undefined when rust-analyzer runs; otherwise the reason the Rust tests skip. */
export function rustAnalyzerMissing(): string | undefined {
  const found = findRustAnalyzer();
  return "missing" in found ? `rust-analyzer not available: ${found.missing}` : undefined;
}

export function dartMissing(): string | undefined {
  return findDart() ? undefined : "the Dart SDK is not installed here (no `dart` or `flutter` on PATH)";
}

/** undefined when gopls runs; otherwise the reason the Go tests skip. */
export function goplsMissing(): string | undefined {
  const found = findGopls();
  return "missing" in found ? `gopls not available: ${found.missing}` : undefined;
}

/**
 * A TypeScript suite file (`// @backends tsserver native`) runs once per backend; its describes
 * that exercise another language run on the tsserver pass only, and say so on the other.
 */
export function otherLanguageOnNativePass(): string | undefined {
  return process.env.SCALPEL_TS_BACKEND === "native"
    ? "not TypeScript: runs once, on the tsserver pass of this file"
    : undefined;
}
