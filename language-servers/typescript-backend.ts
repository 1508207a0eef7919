/**
 * Which server answers for TypeScript in a project: TypeScript 7's native `tsc --lsp` or tsserver
 * (through typescript-language-server). Read from files only, so the answer is the same whether or
 * not the project is trusted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type TypescriptBackend = "native" | "tsserver";

export function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The leading major of a version or range (`7.0.2`, `^7.0.0`, `>=7`, `npm:typescript@7.0.2`); 0 when none. */
export function majorOf(spec: string): number {
  const m = /^(?:npm:typescript@)?\s*[\^~>=v\s]*(\d+)/.exec(spec.trim());
  return m ? Number(m[1]) : 0;
}

/**
 * Which backend serves TypeScript for a project: `typescript_backend` from project.yml, else the
 * `SCALPEL_TS_BACKEND` environment variable (how CI runs the e2e suite on both), else `native`
 * when the project depends on TypeScript ≥ 7 — its installed `node_modules/typescript` when there
 * is one, its package.json's `dependencies`/`devDependencies` otherwise — else `tsserver`. Reading
 * these files runs nothing, so the choice is the same for trusted and untrusted projects.
 */
export function typescriptBackend(
  root: string | undefined,
  configured: TypescriptBackend | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { backend: TypescriptBackend; why: string } {
  if (configured) return { backend: configured, why: "typescript_backend in .scalpel/project.yml" };
  const forced = env.SCALPEL_TS_BACKEND;
  if (forced === "native" || forced === "tsserver") return { backend: forced, why: "SCALPEL_TS_BACKEND" };
  if (root === undefined) return { backend: "tsserver", why: "default" };
  const installed = readJson(join(root, "node_modules", "typescript", "package.json"))?.version;
  if (typeof installed === "string") {
    return majorOf(installed) >= 7
      ? { backend: "native", why: `the project's node_modules has typescript ${installed}` }
      : { backend: "tsserver", why: `the project's node_modules has typescript ${installed}` };
  }
  const pkg = readJson(join(root, "package.json"));
  for (const field of ["dependencies", "devDependencies"]) {
    const deps = pkg?.[field];
    const spec =
      typeof deps === "object" && deps !== null ? (deps as Record<string, unknown>).typescript : undefined;
    if (typeof spec === "string" && majorOf(spec) >= 7)
      return { backend: "native", why: `package.json ${field} has typescript ${spec}` };
  }
  return { backend: "tsserver", why: "default (the project does not depend on TypeScript 7)" };
}
