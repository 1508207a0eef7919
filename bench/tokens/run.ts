// npm run bench:tokens — what six everyday tasks cost the model, with scalpel and by grep-and-read,
// on real code bases fetched from the npm registry at pinned versions (rxjs 7.8.2, zod 3.25.76).
// Characters returned to the model are counted per route (scalpel in both forms a host may show:
// the text content and JSON.stringify(structuredContent)); each answer is scored against the
// TypeScript compiler's own language service. Prints a markdown table and writes the details as
// JSON (BENCH_TOKENS_OUT, default under the OS temp directory). Exits non-zero when a scalpel call
// fails; with BENCH_TOKENS_STRICT=1 also when the acceptance bar of issue #19 (3× on each form in
// total, no task below 1.5× on either, exact answers) is missed.
import { writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScalpel } from "../../test/helpers/mcp.js";
import { AgentTools } from "./agent-tools.js";
import { type CodeBase, RXJS, workingCopy, ZOD } from "./code-bases.js";
import { ScalpelRoute } from "./scalpel-route.js";
import { type PrecisionRecall, pr, precisionRecall, ratio, topFields } from "./score.js";
import { restore, snapshot, TASKS, type Task, type TaskContext, WHOLE_FILE_ROUTE } from "./tasks.js";
import { Truth } from "./truth.js";

const REQUIRED_RATIO = 3;
/** No task below this on either form. */
const REQUIRED_TASK_RATIO = 1.5;
/** Size of scalpel's tools/list answer: a once-per-session cost, outside the per-task counts. */
let toolDefinitionChars = 0;
let toolListChars = 0;

interface Row {
  task: Task;
  truth: string[];
  scalpel: {
    calls: ScalpelRoute["calls"];
    text: number;
    json: number;
    pr: PrecisionRecall;
    missed: string[];
    extra: string[];
  };
  grep: {
    calls: AgentTools["calls"];
    chars: number;
    pr: PrecisionRecall;
    missed: string[];
    extra: string[];
    notes: AgentTools["notes"];
  };
}

function diff(answer: string[], truth: string[]): { missed: string[]; extra: string[] } {
  const a = new Set(answer);
  const t = new Set(truth);
  return { missed: [...t].filter((k) => !a.has(k)), extra: [...a].filter((k) => !t.has(k)) };
}

async function runBase(
  base: CodeBase,
  dir: string,
  home: string,
  tscPath: string,
  rows: Row[],
): Promise<void> {
  const key = base.spec.split("@")[0] as Task["base"];
  const tasks = TASKS.filter((t) => t.base === key);
  const ctx: TaskContext = { dir, truth: new Truth(dir), tscPath };
  const truths = new Map<Task, string[]>();
  const greps = new Map<Task, Row["grep"]>();
  // Truth and the grep route first, on the pristine tree (each restores what it changed), then
  // scalpel on the same tree, so that no file changes under a running language server but its own.
  for (const task of tasks) {
    const truth = task.truth(ctx);
    truths.set(task, truth);
    const before = await snapshot(dir);
    const agent = new AgentTools(dir);
    const answer = task.grep(ctx, agent, truth);
    await restore(before);
    greps.set(task, {
      calls: agent.calls,
      chars: agent.totalChars,
      pr: precisionRecall(answer, truth),
      ...diff(answer, truth),
      notes: agent.notes,
    });
  }
  const h = await startScalpel({ project: dir, env: { SCALPEL_HOME: home } });
  try {
    // A host gives the model each tool's name, description and input schema (not the output schema).
    const { tools } = await h.client.listTools();
    toolDefinitionChars = JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    ).length;
    toolListChars = JSON.stringify(tools).length;
    for (const task of tasks) {
      const route = new ScalpelRoute(h);
      const answer = await task.scalpel(ctx, route);
      const truth = truths.get(task)!;
      rows.push({
        task,
        truth,
        scalpel: {
          calls: route.calls,
          text: route.text,
          json: route.json,
          pr: precisionRecall(answer, truth),
          ...diff(answer, truth),
        },
        grep: greps.get(task)!,
      });
      console.error(`task ${task.id} done`);
    }
  } finally {
    await h.close();
  }
}

function table(rows: Row[]): string {
  const head =
    "| # | task | target | scalpel calls | scalpel chars, text | scalpel chars, JSON | grep-route calls | grep-route chars | ratio text | ratio JSON | P/R scalpel | P/R grep lines |";
  const lines = [head, `|${"---|".repeat(12)}`];
  for (const r of rows) {
    const s = r.scalpel;
    lines.push(
      `| ${r.task.id} | ${r.task.name} | ${r.task.base} ${r.task.target} | ${s.calls.length} (${r.task.tools}) | ${s.text} | ${s.json} | ${r.grep.calls.length} | ${r.grep.chars} | ${ratio(r.grep.chars, s.text)} | ${ratio(r.grep.chars, s.json)} | ${pr(s.pr)} | ${pr(r.grep.pr)} |`,
    );
  }
  const sum = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0);
  const text = sum((r) => r.scalpel.text);
  const json = sum((r) => r.scalpel.json);
  const grep = sum((r) => r.grep.chars);
  lines.push(
    `| | **total** | | ${sum((r) => r.scalpel.calls.length)} | ${text} | ${json} | ${sum((r) => r.grep.calls.length)} | ${grep} | **${ratio(grep, text)}** | **${ratio(grep, json)}** | | |`,
  );
  return lines.join("\n");
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "scalpel-bench-tokens-"));
  const tscPath = createRequire(import.meta.url).resolve("typescript/lib/tsc.js");
  const rows: Row[] = [];
  try {
    const home = join(work, "scalpel-home");
    await mkdir(home);
    for (const base of [RXJS, ZOD]) {
      const dir = await workingCopy(base, work);
      await runBase(base, dir, home, tscPath, rows);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  rows.sort((a, b) => a.task.id - b.task.id);

  console.log("scalpel token benchmark — characters returned to the model per task (lower is better)\n");
  console.log(table(rows));
  const sum = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0);
  const grep = sum((r) => r.grep.chars);
  const forms = [
    ["text", grep / sum((r) => r.scalpel.text)],
    ["JSON", grep / sum((r) => r.scalpel.json)],
  ] as const;
  const inexact = rows.filter((r) => r.scalpel.pr.precision < 1 || r.scalpel.pr.recall < 1);
  console.log("");
  for (const [form, x] of forms) {
    console.log(
      `${x >= REQUIRED_RATIO ? "PASS" : "FAIL"} ${form}: grep route / scalpel = ${x.toFixed(2)}× (need ≥ ${REQUIRED_RATIO}×)`,
    );
  }
  const lowest = (r: Row) => r.grep.chars / Math.max(r.scalpel.text, r.scalpel.json);
  const low = rows.filter((r) => lowest(r) < REQUIRED_TASK_RATIO);
  const worst = rows.reduce((a, b) => (lowest(b) < lowest(a) ? b : a));
  console.log(
    `${low.length === 0 ? "PASS" : "FAIL"} every task: the lowest is task ${worst.task.id} at ${lowest(worst).toFixed(2)}× (need ≥ ${REQUIRED_TASK_RATIO}× on both forms)`,
  );
  for (const r of inexact) {
    console.log(
      `INEXACT task ${r.task.id}: scalpel P/R ${pr(r.scalpel.pr)}; missed ${r.scalpel.missed.slice(0, 8).join(", ")}; extra ${r.scalpel.extra.slice(0, 8).join(", ")}`,
    );
  }
  if (inexact.length === 0) console.log("PASS scalpel's answers equal the compiler's on every task");
  console.log("\nWhere scalpel's JSON characters go (costliest fields, summed over the task's calls):");
  for (const r of rows) {
    const fields: Record<string, number> = {};
    for (const c of r.scalpel.calls)
      for (const [k, n] of Object.entries(c.fields)) fields[k] = (fields[k] ?? 0) + n;
    console.log(
      `  task ${r.task.id} (JSON ${r.scalpel.json}, text ${r.scalpel.text}): ${topFields(fields, 8).join(", ")}`,
    );
  }
  for (const r of rows) {
    for (const [what, n] of Object.entries(r.grep.notes)) {
      console.log(`\nTask ${r.task.id} by ${what} returns ${n} characters instead of ${r.grep.chars}.`);
      if (what === WHOLE_FILE_ROUTE) {
        const g = grep - r.grep.chars + n;
        console.log(
          `With it the grep route totals ${g}: ${ratio(
            g,
            sum((x) => x.scalpel.text),
          )} on text, ${ratio(
            g,
            sum((x) => x.scalpel.json),
          )} on JSON.`,
        );
      }
    }
  }

  const out = process.env.BENCH_TOKENS_OUT ?? join(tmpdir(), "scalpel-bench-tokens-results.json");
  const tasks = rows.map((r) => ({
    id: r.task.id,
    task: r.task.name,
    code_base: r.task.base,
    target: r.task.target,
    truth_size: r.truth.length,
    scalpel: r.scalpel,
    grep_route: r.grep,
  }));
  writeFileSync(
    out,
    `${JSON.stringify({ tool_definition_chars: toolDefinitionChars, tools_list_chars: toolListChars, tasks }, null, 2)}\n`,
  );
  console.log(
    `\nNot in the table: scalpel's tool definitions as the model gets them once per session (name, description, input schema of each tool) are ${toolDefinitionChars} characters of JSON (the whole tools/list answer, output schemas included: ${toolListChars}).`,
  );
  console.log(`details: ${out}`);
  const met = forms.every(([, x]) => x >= REQUIRED_RATIO) && low.length === 0 && inexact.length === 0;
  if (!met && process.env.BENCH_TOKENS_STRICT === "1") process.exit(2);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
