/**
 * Host paths out of text that reaches a caller: the project root becomes relative, any other
 * absolute path keeps only its base name (a server's or a compiler's message may quote both).
 */
export function scrubPaths(text: string, root: string | undefined): string {
  let out = text;
  if (root) out = out.split(`${root}/`).join("").split(root).join(".");
  // Any absolute path left is a host path: keep only its base name.
  return out.replace(/(?:^|(?<=[\s'"(]))\/(?:[^\s'"()/]+\/)+([^\s'"()/]+)/g, "…/$1");
}
