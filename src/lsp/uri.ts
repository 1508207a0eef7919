/**
 * File path ⇄ `file:` URI. Servers spell the same file differently (vscode-uri encodes `:` and
 * `@`, upper/lower-case drive letters, `%3A` after the drive), so every URI that enters the client is
 * passed through `normalizeUri` before it is used as a map key.
 */
import { fileURLToPath, pathToFileURL } from "node:url";

export function pathToUri(absPath: string): string {
  // Drive letters are case-insensitive; VS Code-style servers send them lower-case.
  return pathToFileURL(absPath).href.replace(
    /^file:\/\/\/([A-Z]):/,
    (_m, d: string) => `file:///${d.toLowerCase()}:`,
  );
}

export function uriToPath(uri: string): string {
  const url = new URL(uri);
  if (url.protocol !== "file:") throw new Error(`not a file URI: ${uri}`);
  // `file:///c%3A/x` is valid but fileURLToPath rejects an encoded drive colon on Windows.
  url.pathname = url.pathname.replace(/^\/([a-zA-Z])%3[aA]/, "/$1:");
  return fileURLToPath(url);
}

/** Canonical spelling of a URI; non-file URIs and malformed input are returned unchanged. */
export function normalizeUri(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return pathToUri(uriToPath(uri));
  } catch {
    return uri;
  }
}
