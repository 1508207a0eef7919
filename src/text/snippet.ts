/** `line` with `context` lines around it, each prefixed with its 1-based number. */
export function snippet(lines: readonly string[], line0: number, context: number): string {
  const from = Math.max(0, line0 - context);
  const to = Math.min(lines.length - 1, line0 + context);
  const width = String(to + 1).length;
  const out: string[] = [];
  for (let l = from; l <= to; l++) out.push(`${String(l + 1).padStart(width)}: ${lines[l] ?? ""}`);
  return out.join("\n");
}
