/**
 * What a Python project's root files say for onboarding: the Python adapter's `onboarding`.
 * pyproject.toml's `[project]` table (PEP 621) and `[project.scripts]`, its `[build-system]`, the
 * tools it configures, the lock files that name the package manager, and the runner's test, lint
 * and type-check commands.
 */
import type { ManifestFacts, OnboardingFacts } from "../src/languages/adapter.js";
import { readToml, stringAt, stringsAt, type Table, tableIn } from "./toml.js";

export interface PythonFiles {
  /** pyproject.toml's text; one that is not TOML counts as absent. */
  pyproject: string | null;
  /** Which other root files exist. */
  has: (name: string) => boolean;
}

type Runner = { name: string; why: string; run: (cmd: string) => string; install: string };

function runnerOf(f: PythonFiles, py: Table | null): Runner | undefined {
  if (f.has("uv.lock")) return { name: "uv", why: "uv.lock", run: (c) => `uv run ${c}`, install: "uv sync" };
  if (f.has("poetry.lock") || tableIn(py, "tool", "poetry"))
    return {
      name: "poetry",
      why: f.has("poetry.lock") ? "poetry.lock" : "pyproject.toml [tool.poetry]",
      run: (c) => `poetry run ${c}`,
      install: "poetry install",
    };
  if (f.has("pdm.lock"))
    return { name: "pdm", why: "pdm.lock", run: (c) => `pdm run ${c}`, install: "pdm install" };
  if (f.has("Pipfile"))
    return { name: "pipenv", why: "Pipfile", run: (c) => `pipenv run ${c}`, install: "pipenv install --dev" };
  return undefined;
}

export function pythonFacts(f: PythonFiles): ManifestFacts {
  const py = f.pyproject === null ? null : readToml(f.pyproject);
  const buildFiles = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"].filter((n) =>
    n === "pyproject.toml" ? py !== null : f.has(n),
  );
  const project = tableIn(py, "project");
  const buildSystem = tableIn(py, "build-system");
  // `[tool.pytest.ini_options]` configures pytest as much as `[tool.pytest]` would.
  const hasTool = (t: string) => tableIn(py, "tool", t) !== undefined;
  const source = (t: string, file: string) => (hasTool(t) ? `pyproject.toml [tool.${t}]` : file);
  const runner = runnerOf(f, py);
  const run = runner?.run ?? ((c: string) => c);
  const main = buildFiles[0] ?? "";
  const commands: string[] = [];
  if (runner) commands.push(`${runner.install} (${runner.why}; install)`);
  else if (py !== null || f.has("setup.py")) commands.push(`pip install -e . (${main}; install)`);
  else if (f.has("requirements.txt"))
    commands.push("pip install -r requirements.txt (requirements.txt; install)");
  commands.push(
    `${run("python -m pytest")} (${hasTool("pytest") ? "pyproject.toml [tool.pytest]" : main}; test)`,
  );
  if (hasTool("ruff") || f.has("ruff.toml"))
    commands.push(`${run("ruff check .")} (${source("ruff", "ruff.toml")}; lint)`);
  if (hasTool("pyright") || f.has("pyrightconfig.json"))
    commands.push(`${run("pyright")} (${source("pyright", "pyrightconfig.json")}; type check)`);
  if (hasTool("mypy") || f.has("mypy.ini"))
    commands.push(`${run("mypy .")} (${source("mypy", "mypy.ini")}; type check)`);
  if (buildSystem) commands.push("python -m build (pyproject.toml [build-system]; build)");
  const entryPoints: string[] = [];
  for (const [name, target] of Object.entries(tableIn(project, "scripts") ?? {})) {
    if (typeof target === "string")
      entryPoints.push(`${name} → ${target} (pyproject.toml [project.scripts])`);
  }
  const notes: string[] = [];
  if (project) {
    const name = stringAt(project, "name");
    const requires = stringAt(project, "requires-python");
    const dependencies = stringsAt(project, "dependencies");
    const backend = stringAt(buildSystem, "build-backend");
    const about = [
      stringAt(project, "version"),
      requires ? `requires-python ${requires}` : undefined,
      dependencies ? `${dependencies.length} dependencies` : undefined,
      backend ? `built with ${backend}` : undefined,
    ].filter((s) => s !== undefined);
    notes.push(
      `Python project ${name ?? "(no name)"}${about.length ? `: ${about.join(", ")}` : ""} (pyproject.toml)`,
    );
  }
  const out: ManifestFacts = { buildFiles, entryPoints, commands, notes };
  if (runner) out.packageManager = `${runner.name} (${runner.why})`;
  return out;
}

const rootFiles = [
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "Pipfile",
  "uv.lock",
  "poetry.lock",
  "pdm.lock",
  "ruff.toml",
  "pyrightconfig.json",
  "mypy.ini",
];

export const pythonOnboarding: OnboardingFacts = {
  manifests: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"],
  async facts(tree) {
    const pyproject = await tree.read("pyproject.toml");
    const present = new Set<string>();
    for (const name of rootFiles) if (await tree.isFile(name)) present.add(name);
    const facts = pythonFacts({ pyproject, has: (n) => present.has(n) });
    // No manifest, or only a pyproject.toml that is not TOML: nothing to say.
    if (facts.buildFiles.length === 0) return null;
    // Scripts run directly: the conventional root entry files, and packages runnable with `-m`.
    for (const file of ["main.py", "manage.py", "app.py", "__main__.py"]) {
      if (await tree.isFile(file)) facts.entryPoints.push(`${file} (Python script)`);
    }
    for (const base of ["", "src/"]) {
      for (const dir of await tree.dirs(base === "" ? "." : "src")) {
        if (await tree.isFile(`${base}${dir}/__main__.py`))
          facts.entryPoints.push(`${base}${dir}/__main__.py (python -m ${dir})`);
      }
    }
    return facts;
  },
};
