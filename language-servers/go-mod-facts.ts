/**
 * What a root go.mod (and go.work) says for onboarding: the Go adapter's `onboarding`. The module
 * path, its Go version and how many modules it requires directly (`// indirect` ones are only
 * recorded for the build list), the main packages under `cmd/`, and the go command's own build,
 * test and vet over every package of the module (`./...`).
 */
import type { ManifestFacts, OnboardingFacts } from "../src/languages/adapter.js";

export interface GoMod {
  module: string | null;
  go: string | null;
  toolchain: string | null;
  /** Required module paths, direct and `// indirect`. */
  direct: string[];
  indirect: number;
}

/** The lines of a go.mod directive, single (`require a v1`) or a block (`require (\n a v1\n)`). */
function directiveLines(text: string, verb: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith(verb)) continue;
    const rest = line.slice(verb.length);
    if (/^\s*\(\s*(\/\/.*)?$/.test(rest)) {
      for (i++; i < lines.length && !/^\s*\)/.test(lines[i]!); i++) {
        const inner = lines[i]!.trim();
        if (inner !== "" && !inner.startsWith("//")) out.push(inner);
      }
    } else if (/^\s/.test(rest)) {
      out.push(rest.trim());
    }
  }
  return out;
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, "$1").replace(/^`(.*)`$/, "$1");

/** go.mod without the go command: the directives onboarding names. */
export function parseGoMod(text: string): GoMod {
  const first = (verb: string) => {
    const v = directiveLines(text, verb)[0];
    return v === undefined ? null : unquote(v.replace(/\s*\/\/.*$/, "").trim());
  };
  const requires = directiveLines(text, "require");
  const indirect = requires.filter((r) => /\/\/\s*indirect\b/.test(r));
  return {
    module: first("module"),
    go: first("go"),
    toolchain: first("toolchain"),
    direct: requires.filter((r) => !indirect.includes(r)).map((r) => unquote(r.split(/\s+/)[0] ?? "")),
    indirect: indirect.length,
  };
}

/** The directories a go.work file `use`s, root-relative, without `./`. */
export function goWorkUses(text: string): string[] {
  return directiveLines(text, "use")
    .map((u) =>
      unquote(u.replace(/\s*\/\/.*$/, "").trim())
        .replace(/^\.\/?/, "")
        .replace(/\/+$/, ""),
    )
    .filter((u) => u !== "" && !u.startsWith(".") && !u.startsWith("/"));
}

export function goModFacts(mod: GoMod): ManifestFacts {
  const about = [
    mod.go ? `go ${mod.go}` : null,
    mod.toolchain ? `toolchain ${mod.toolchain}` : null,
    `${mod.direct.length} direct requirement${mod.direct.length === 1 ? "" : "s"}${mod.indirect > 0 ? ` (${mod.indirect} indirect)` : ""}`,
  ].filter((s) => s !== null);
  return {
    buildFiles: ["go.mod"],
    entryPoints: [],
    commands: [
      "go build ./... (go.mod)",
      "go test ./... (go.mod)",
      "go vet ./... (go.mod; lint)",
      "gofmt -l . (go.mod; format)",
    ],
    notes: [`Go module ${mod.module ?? "(no module line)"}: ${about.join(", ")} (go.mod)`],
  };
}

export const goModOnboarding: OnboardingFacts = {
  manifests: ["go.mod"],
  // Commands, and packages private to the module (the go command enforces `internal`).
  sourceFolders: ["cmd", "internal"],
  async facts(tree) {
    const text = await tree.read("go.mod");
    if (text === null) return null;
    const facts = goModFacts(parseGoMod(text));
    // The module's main packages: the root's, and the `cmd/<name>` convention.
    if (/^package\s+main\b/m.test((await tree.read("main.go")) ?? ""))
      facts.entryPoints.push("main.go (Go main package)");
    for (const dir of await tree.dirs("cmd")) {
      if (await tree.isFile(`cmd/${dir}/main.go`)) facts.entryPoints.push(`cmd/${dir}/main.go (Go command)`);
    }
    const work = await tree.read("go.work");
    if (work !== null) {
      facts.buildFiles.push("go.work");
      facts.workspaces = goWorkUses(work);
    }
    return facts;
  },
};
