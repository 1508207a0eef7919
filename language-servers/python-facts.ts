/**
 * What a Python project's root files say for onboarding: the Python adapter's `onboarding`. Read
 * without a TOML parser: the few keys named here are enough. pyproject.toml's `[project]` table
 * (PEP 621) and `[project.scripts]`, its `[build-system]`, the tools it configures, the lock files
 * that name the package manager, and the runner's test, lint and type-check commands.
 */
import type { ManifestFacts, OnboardingFacts } from "../src/languages/adapter.js";

/** The lines of one `[table]` of a TOML file, up to the next table header. */
export function tomlTable(text: string, name: string): string | null {
  const lines = text.split(/\r?\n/);
  const header = `[${name}]`;
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** A `key = "value"` string in a table's text. */
function stringKey(table: string | null, key: string): string | null {
  if (table === null) return null;
  const m = new RegExp(`^\\s*${key.replace(/[-.]/g, "\\$&")}\\s*=\\s*["']([^"']*)["']`, "m").exec(table);
  return m ? m[1]! : null;
}

/** How many strings a `key = [ … ]` array holds (dependencies). */
function arrayLength(table: string | null, key: string): number | null {
  if (table === null) return null;
  const m = new RegExp(`^\\s*${key}\\s*=\\s*\\[([^\\]]*)\\]`, "m").exec(table);
  return m ? [...m[1]!.matchAll(/["'][^"']+["']/g)].length : null;
}

export interface PythonFiles {
  pyproject: string | null;
  /** Which other root files exist. */
  has: (name: string) => boolean;
}

type Runner = { name: string; why: string; run: (cmd: string) => string; install: string };

function runnerOf(f: PythonFiles): Runner | undefined {
  const tool = (t: string) => f.pyproject !== null && tomlTable(f.pyproject, t) !== null;
  if (f.has("uv.lock")) return { name: "uv", why: "uv.lock", run: (c) => `uv run ${c}`, install: "uv sync" };
  if (f.has("poetry.lock") || tool("tool.poetry"))
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
  const py = f.pyproject;
  const buildFiles = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"].filter((n) =>
    n === "pyproject.toml" ? py !== null : f.has(n),
  );
  const project = py === null ? null : tomlTable(py, "project");
  const hasTool = (t: string) => py !== null && new RegExp(`^\\[tool\\.${t}[.\\]]`, "m").test(py);
  const source = (t: string, file: string) => (hasTool(t) ? `pyproject.toml [tool.${t}]` : file);
  const runner = runnerOf(f);
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
  if (py !== null && tomlTable(py, "build-system") !== null)
    commands.push("python -m build (pyproject.toml [build-system]; build)");
  const entryPoints: string[] = [];
  const scripts = py === null ? null : tomlTable(py, "project.scripts");
  for (const m of (scripts ?? "").matchAll(/^\s*["']?([\w.-]+)["']?\s*=\s*["']([^"']+)["']/gm)) {
    entryPoints.push(`${m[1]} → ${m[2]} (pyproject.toml [project.scripts])`);
  }
  const notes: string[] = [];
  const name = stringKey(project, "name");
  if (project !== null) {
    const about = [
      stringKey(project, "version"),
      stringKey(project, "requires-python")
        ? `requires-python ${stringKey(project, "requires-python")}`
        : null,
      arrayLength(project, "dependencies") !== null
        ? `${arrayLength(project, "dependencies")} dependencies`
        : null,
      py !== null && stringKey(tomlTable(py, "build-system"), "build-backend")
        ? `built with ${stringKey(tomlTable(py, "build-system"), "build-backend")}`
        : null,
    ].filter((s) => s !== null);
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
    if (
      pyproject === null &&
      !["setup.py", "setup.cfg", "requirements.txt", "Pipfile"].some((n) => present.has(n))
    )
      return null;
    const facts = pythonFacts({ pyproject, has: (n) => present.has(n) });
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
