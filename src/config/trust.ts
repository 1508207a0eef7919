/**
 * Project trust, as editors have workspace trust. A repository the user just cloned must not run
 * its own code through scalpel: until the user trusts the project, no language server declared in
 * its `.scalpel/project.yml` starts, no server binary shipped inside the repository is used, and
 * no build step that runs the repository's code (build scripts, proc macros, `cargo check`) runs.
 *
 * Trust is the user's act, never an agent's: it is granted in a terminal (`scalpel trust [PATH]`)
 * or for one session on the command line (`scalpel mcp --project PATH --trust`), and no tool can
 * grant it. It is stored at user level (`$SCALPEL_HOME/trust.json`), outside every project, keyed
 * by the project's real path and bound to a digest of its project.yml: a changed config (a new
 * server command, say, written by an agent) is not trusted until the user trusts it again.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { adapters, adaptersFor } from "../../language-servers/index.js";
import { detectLanguages } from "../files/detect-languages.js";
import { IgnoreRules } from "../files/ignore.js";
import { type ProjectConfig, splitSecretAllowances } from "./project-config.js";
import { scalpelHome } from "./registry.js";
import { readUserJson, writeUserJson } from "./user-file.js";

/** How the file is named in messages: never the host path. */
const display = "$SCALPEL_HOME/trust.json";

/** The digest of a project.yml's bytes; a project without one has its own fixed digest. */
export function configDigest(text: string | null): string {
  return text === null ? "none" : `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

export function trustFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(scalpelHome(env), "trust.json");
}

const storeSchema = z.object({
  projects: z
    .record(z.string(), z.object({ config: z.string(), trusted_at: z.string().optional() }))
    .default({}),
});
type Store = z.infer<typeof storeSchema>;

/**
 * `trusted`: the user trusts this project with this config. `changed`: they trusted it, but its
 * project.yml changed since. `session`: trusted for this run only (`--trust`). `untrusted`: never.
 */
export type TrustState = "trusted" | "session" | "changed" | "untrusted";

export interface Trust {
  state: TrustState;
  readonly trusted: boolean;
}

export function trustOf(state: TrustState): Trust {
  return { state, trusted: state === "trusted" || state === "session" };
}

export class TrustStore {
  constructor(readonly file: string = trustFile()) {}

  private async load(): Promise<Store> {
    const store = await readUserJson(
      this.file,
      display,
      storeSchema,
      "is not a valid trust store. Delete it and trust your projects again with 'scalpel trust PATH'.",
    );
    return store ?? { projects: {} };
  }

  private async save(store: Store): Promise<void> {
    const sorted = Object.fromEntries(Object.entries(store.projects).sort(([a], [b]) => (a < b ? -1 : 1)));
    await writeUserJson(this.file, { projects: sorted });
  }

  /**
   * The stored state of `root` (a real path) with the config of digest `digest`. A store that
   * cannot be read trusts nothing: failing closed costs a `scalpel trust`, failing open runs code.
   */
  async state(root: string, digest: string): Promise<TrustState> {
    const store = await this.load().catch(() => ({ projects: {} }) as Store);
    const entry = store.projects[root];
    if (!entry) return "untrusted";
    return entry.config === digest ? "trusted" : "changed";
  }

  /** Trusts `root` with the config of digest `digest` (replacing an earlier grant). */
  async trust(root: string, digest: string): Promise<void> {
    const store = await this.load();
    store.projects[root] = { config: digest, trusted_at: new Date().toISOString() };
    await this.save(store);
  }

  /** Withdraws trust; false when the project was not trusted. */
  async revoke(root: string): Promise<boolean> {
    const store = await this.load();
    if (!(root in store.projects)) return false;
    delete store.projects[root];
    await this.save(store);
    return true;
  }
}

/**
 * What trusting lets the built-in servers of these languages run, in the adapters' words
 * (`trustEnables`: what each adapter's untrusted form withholds), for the project at `root`.
 */
export function builtInTrustEnables(root: string, languages: readonly string[]): string[] {
  return adapters.flatMap((a) => {
    const what = languages.includes(a.id) ? a.trustEnables?.(root) : null;
    return what ? [what] : [];
  });
}

/**
 * What trusting would enable, for the project's servers: shown by `doctor` and `activate_project`
 * while the project is not trusted. `declared`: the server ids project.yml declares.
 */
export function whatTrustEnables(
  root: string,
  declared: readonly string[],
  languages: readonly string[],
  secretAllowances: readonly string[],
): string[] {
  const out: string[] = [];
  if (declared.length > 0)
    out.push(
      `start the language server${declared.length === 1 ? "" : "s"} declared in .scalpel/project.yml (${declared.join(", ")})`,
    );
  out.push(...builtInTrustEnables(root, languages));
  if (secretAllowances.length > 0)
    out.push(`apply the secret exceptions of .scalpel/project.yml (${secretAllowances.join(", ")})`);
  return out;
}

/**
 * The languages of a project that is not open (doctor, `scalpel trust`): its `languages`, else
 * those detected the way activation detects them, with the servers it declares counted in.
 */
export async function languagesOnDisk(root: string, config: ProjectConfig): Promise<string[]> {
  if (config.languages) return [...config.languages];
  const all = adaptersFor(config.language_servers, { trusted: true });
  const found = await detectLanguages(root, new IgnoreRules(root, config.ignored_paths), all);
  return found.map((f) => f.language);
}

/** whatTrustEnables for a project that is not open. */
export async function whatTrustWouldEnable(root: string, config: ProjectConfig): Promise<string[]> {
  const { allowances } = splitSecretAllowances(config.secrets);
  return whatTrustEnables(
    root,
    Object.keys(config.language_servers),
    await languagesOnDisk(root, config),
    allowances,
  );
}

/** The sentence that tells the user how to trust, for messages (no host paths). */
export const howToTrust =
  "To trust it, run `scalpel trust` in the project's directory (or start scalpel with `--project PATH --trust`).";
