// npm run demo: a short scripted tour of scalpel on the bundled example project. It drives the
// built server exactly as an agent would — the MCP SDK client over stdio — on a temporary copy of
// examples/shop, so the repository is never modified.
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const repo = new URL("..", import.meta.url).pathname;
const cli = join(repo, "dist", "src", "cli.js");
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "scalpel-demo-"));
  await cp(join(repo, "examples", "shop"), dir, { recursive: true });
  // A repository with one commit, so the tour can review its own change against it (get_change_impact).
  const committed = commitCopy(dir);
  // The tour's own user-level folder (registry, trust), so it leaves nothing in ~/.scalpel.
  const home = await mkdtemp(join(tmpdir(), "scalpel-demo-home-"));
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The user names the project on the command line; that is what lets activate_project open it.
    // As a user runs it: through the per-user daemon (the tour's own, in its home), with short
    // bounds and stopped at the end, so that nothing of the tour runs on after it.
    args: [cli, "mcp", "--project", dir],
    env: { ...env, SCALPEL_HOME: home, SCALPEL_KEEP_WARM: "1", SCALPEL_DAEMON_IDLE: "5" },
    stderr: "ignore",
  });
  const client = new Client({ name: "scalpel-demo", version: "1" });
  await client.connect(transport);
  let step = 0;
  const call = async (title: string, name: string, args: Record<string, unknown>) => {
    step++;
    process.stdout.write(`\n${bold(`${step}. ${title}`)}\n   ${name} ${JSON.stringify(args)}\n\n`);
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 180_000,
      onprogress: (p) => process.stdout.write(`   … ${p.message ?? p.progress}\n`),
    });
    const text = (result.content as Array<{ type: string; text?: string }>)
      .map((c) => c.text ?? "")
      .join("\n");
    process.stdout.write(`${text.replace(/^/gm, "   ")}\n`);
    if (result.isError) throw new Error(`${name} failed`);
    return result.structuredContent as Record<string, unknown>;
  };
  try {
    await call("Activate the example project (a shop: prices, carts, discounts)", "activate_project", {
      project: dir,
    });
    await call("What is in src/? Top-level symbols of every file", "get_symbols_overview", {
      relative_path: "src",
    });
    await call("Find a symbol by name path, with its body", "find_symbol", {
      name_path_pattern: "Price/times",
      include_body: true,
    });
    await call(
      "Who calls Price.times? Type-precise references with their containing symbols",
      "find_referencing_symbols",
      {
        name_path: "Price/times",
        relative_path: "src/price.ts",
        context_lines: 0,
      },
    );
    await call(
      "Rename it across files — as a dry run: nothing is written, the diff is returned",
      "rename_symbol",
      {
        name_path: "Price/times",
        relative_path: "src/price.ts",
        new_name: "multipliedBy",
        dry_run: true,
      },
    );
    const original = await call("Read Cart/lineTotal before changing it", "find_symbol", {
      name_path_pattern: "Cart/lineTotal",
      relative_path: "src/cart.ts",
      include_body: true,
    });
    const body = (original.symbols as Array<{ body: string }>)[0]!.body;
    await call(
      "An edit that breaks the build: the body is sent unindented and lands re-indented",
      "replace_symbol_body",
      {
        name_path: "Cart/lineTotal",
        relative_path: "src/cart.ts",
        body: "lineTotal(line: CartLine): Price {\n  return line.product.price.times(String(line.quantity));\n}",
        // The diff shows the re-indentation; without it an applied symbol edit says only where it changed.
        show_diff: true,
      },
    );
    await call("The compiler's view of the file, fresh after the edit", "get_diagnostics_for_file", {
      relative_path: "src/cart.ts",
      min_severity: "error",
    });
    if (committed) {
      await call(
        "Review the change against the last commit: which symbols changed, who depends on them, what broke",
        "get_change_impact",
        {},
      );
    } else {
      process.stdout.write("\n   (git is not installed: the change review step is skipped)\n");
    }
    await call("Undo it with a second edit: put the original declaration back", "replace_symbol_body", {
      name_path: "Cart/lineTotal",
      relative_path: "src/cart.ts",
      body,
    });
    await call("Diagnostics again: clean", "get_diagnostics_for_file", {
      relative_path: "src/cart.ts",
      min_severity: "error",
    });
    process.stdout.write(
      `\n${bold("Done.")} Every step above went through the MCP protocol, as an agent would see it.\n`,
    );
  } finally {
    await client.close();
    spawnSync(process.execPath, [cli, "daemon", "stop"], {
      env: { ...env, SCALPEL_HOME: home },
      stdio: "ignore",
    });
    await rm(dir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

/** `git init` and one commit of the copy, with no user or system git config read; false without git. */
function commitCopy(dir: string): boolean {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "scalpel demo",
    GIT_AUTHOR_EMAIL: "demo@example.com",
    GIT_COMMITTER_NAME: "scalpel demo",
    GIT_COMMITTER_EMAIL: "demo@example.com",
  };
  for (const args of [
    ["init", "-q"],
    ["add", "-A"],
    ["commit", "-qm", "the example as shipped"],
  ]) {
    const r = spawnSync("git", args, { cwd: dir, env, stdio: "ignore" });
    if (r.status !== 0) return false;
  }
  return true;
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
