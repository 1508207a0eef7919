/** `scalpel trust|untrust|register [PATH]` (moved out of cli.ts, which only dispatches to it). */
import { realpath, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { refuseForbiddenRoot } from "./config/allowed-roots.js";
import { configFile, readProjectConfig, splitSecretAllowances } from "./config/project-config.js";
import { isProjectName, ProjectRegistry } from "./config/registry.js";
import { builtInTrustEnables, configDigest, languagesOnDisk, TrustStore } from "./config/trust.js";

/** `scalpel trust|untrust|register [PATH]`: the user's own decisions, made in a terminal. */
export async function userDecision(
  command: "trust" | "untrust" | "register",
  pathArg: string | undefined,
): Promise<number> {
  const given = resolve(process.cwd(), pathArg ?? ".");
  const root = await realpath(given).catch(() => null);
  if (root === null || !(await stat(root)).isDirectory()) {
    process.stderr.write(`No directory ${given}.\n`);
    return 1;
  }
  refuseForbiddenRoot(root);
  const store = new TrustStore();
  if (command === "untrust") {
    const was = await store.revoke(root);
    process.stdout.write(was ? `${root} is no longer trusted.\n` : `${root} was not trusted.\n`);
    return 0;
  }
  // The config is read (and must be valid) before anything is stored: trust is bound to these bytes.
  const { config, text } = await readProjectConfig(root);
  const name = config.name ?? basename(root);
  const registry = new ProjectRegistry();
  if (isProjectName(name)) await registry.register(name, root);
  else process.stderr.write(`'${name}' cannot be used as a project name; activate it by its path.\n`);
  if (command === "register") {
    process.stdout.write(
      `${root} is registered as '${name}': activate_project may open it (it is not trusted).\n`,
    );
    return 0;
  }
  await store.trust(root, configDigest(text));
  const granted: string[] = [];
  for (const [id, ls] of Object.entries(config.language_servers))
    granted.push(`start the ${id} server declared in ${configFile}: ${[ls.command, ...ls.args].join(" ")}`);
  granted.push(...builtInTrustEnables(root, await languagesOnDisk(root, config)));
  const { allowances } = splitSecretAllowances(config.secrets);
  if (allowances.length > 0) granted.push(`apply its secret exceptions: ${allowances.join(", ")}`);
  const lines = [
    `${root} is trusted (as '${name}').${granted.length > 0 ? " For this project, scalpel may now:" : " For the languages found, trust changes nothing yet."}`,
    ...granted.map((g) => `  - ${g}`),
  ];
  lines.push(`A change to ${configFile} withdraws this trust until you run scalpel trust again.`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
