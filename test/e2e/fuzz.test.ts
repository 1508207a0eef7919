// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Fuzz (issue #10, acceptance 6): ≥ 2,000 generated calls on ONE server, the way a host sends
 * them (listTools first, then batches in parallel), against a project holding secrets:
 * - valid calls, calls with wrong types, unknown or missing parameters, and hostile values (path
 *   tricks, NUL bytes, huge strings, slow regexes, shell and template syntax);
 * - no call kills the server or runs past its deadline;
 * - no reply carries a host path, a stack trace or a secret's content, in either form.
 * The generator is seeded; a failure prints the seed and the call, so it can be replayed.
 */
import { strict as assert } from "node:assert";
import { homedir } from "node:os";
import { after, before, describe, it } from "node:test";
import { copyFixture, repoRoot, type TempProject } from "../helpers/fixtures.js";
import { isAlive, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { mulberry32 } from "../helpers/prng.js";
import { byTier } from "../helpers/tier.js";

const CALLS = Number(process.env.FUZZ_CALLS ?? byTier(300, 2000));
const PARALLEL = 8;
/** No call may take longer than this (tool deadlines are shorter; the machine is noisy). */
const CALL_BOUND_MS = 90_000;
const SEED = Number(process.env.FUZZ_SEED ?? 0x5ca1);

/** Content of the fixture's secret files: no reply may ever contain these. */
const secretContent = [
  "VAULT_MARKER_ENV_c41e2b",
  "VAULT_MARKER_KEY_9d2f7a",
  "VAULT_MARKER_MAKE",
  "VAULT_MARKER_BODY",
  "VAULT_MARKER_COMMENT",
  "VAULT_MARKER_DOC",
];

/** Plausible values by what a parameter is for, so most calls get past validation. */
const validByRole: Record<string, string[]> = {
  path: ["src/app.ts", "src/shapes.ts", "src", ".", "package.json", "tsconfig.json"],
  name: ["Shape", "Circle", "Circle/area", "normalize", "area", "describe", "Square"],
  pattern: ["export", "return", "Shape", "area\\(", "\\bconst\\b", "*.ts"],
  content: ["export const added = 1;\n", "  return 0;\n", "function f() {\n  return 1;\n}\n", "# notes\n"],
  other: ["memo-one", "x", "src", "typescript"],
};

function roleOf(key: string): keyof typeof validByRole {
  if (/path|file|dir|project/.test(key)) return "path";
  if (/name/.test(key)) return "name";
  if (/pattern|regex|mask|needle/.test(key)) return "pattern";
  if (/body|content|text|repl/.test(key)) return "content";
  return "other";
}

const hostileStrings = [
  "../../etc/passwd",
  "/etc/passwd",
  "/",
  "/etc",
  "%2e%2e/%2e%2e/etc/passwd",
  "src/\u0000app.ts",
  "..\\..\\windows\\win.ini",
  "src/../../outside",
  ".env",
  ".ENV",
  "src/vault/keys.ts",
  "src/vault",
  "Makefile",
  ".scalpel/project.yml",
  ".git/config",
  "~/.ssh/id_rsa",
  "(a+)+$",
  "(x+x+)+y",
  "[",
  "**/*",
  "",
  " ",
  "ü🙂\u202e",
  "$" + "{HOME}",
  "$(touch pwned)",
  "`id`",
  "a".repeat(20_000),
  "VAULT",
  "API_TOKEN",
  "secrets:\n  - '!.env*'\nlanguage_servers:\n  sh:\n    command: /bin/sh\n    extensions: ['.sh']\n",
];

const validNumbers = [1, 2, 3, 5, 10, 50, 200];
const hostileNumbers = [-1, 0, 2.5, 1e9, -1e9, Number.MAX_SAFE_INTEGER];

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
}

function valueFor(schema: JsonSchema | undefined, r: () => number, key = ""): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  // Sometimes the wrong type altogether.
  if (r() < 0.03) return pick([null, 42, "str", true, [], {}, [1, "a"], { nested: { deep: [null] } }]);
  const s = schema?.anyOf ? pick(schema.anyOf) : schema;
  if (s?.enum) return r() < 0.9 ? pick(s.enum) : "not-a-choice";
  const type = Array.isArray(s?.type) ? pick(s.type) : s?.type;
  switch (type) {
    case "string":
      return r() < 0.6 ? pick(validByRole[roleOf(key)]!) : pick(hostileStrings);
    case "integer":
    case "number":
      if (r() >= 0.75) return pick(hostileNumbers);
      return /chars/.test(key) ? pick([500, 5000, 20_000]) : pick(validNumbers);
    case "boolean":
      return r() < 0.5;
    case "array":
      return Array.from({ length: Math.floor(r() * 3) }, () => valueFor(s?.items, r, key));
    case "object":
      return {};
    default:
      return pick(validByRole.other!);
  }
}

function argsFor(schema: JsonSchema, r: () => number): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const keep = required.has(key) ? r() > 0.02 : r() < 0.4;
    if (keep) args[key] = valueFor(prop, r, key);
  }
  if (r() < 0.02) args.unknown_parameter = "x";
  return args;
}

/** Tools whose every call is slow (a whole-project check, a tour): fewer of them. */
const slowTools = new Set(["get_project_diagnostics", "onboarding"]);

describe("fuzz: generated calls on one server (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("ts-secret");
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it(`answers ${CALLS} generated calls without dying, hanging or leaking`, async () => {
    const r = mulberry32(SEED);
    const { tools } = await h.client.listTools();
    const weighted = tools.flatMap((t) => (slowTools.has(t.name) ? [t] : [t, t, t, t, t]));
    const forbidden = [fx.dir, repoRoot.replace(/\/$/, ""), homedir(), ...secretContent];
    const stackFrame = /\bat (?:async )?[\w.<>]*\s*\(?(?:file:\/\/)?\/[^\s)]+:\d+:\d+\)?/;
    const problems: string[] = [];
    let done = 0;
    let slowest = { ms: 0, call: "" };
    const outcomes = new Map<string, number>();
    while (done < CALLS) {
      const batch = Array.from({ length: Math.min(PARALLEL, CALLS - done) }, () => {
        const tool = weighted[Math.floor(r() * weighted.length)]!;
        return { name: tool.name, args: argsFor(tool.inputSchema as JsonSchema, r) };
      });
      await Promise.all(
        batch.map(async ({ name, args }) => {
          const shown = `${name}(${JSON.stringify(args).slice(0, 200)})`;
          const t0 = performance.now();
          let reply: string;
          try {
            const res = await h.client.callTool({ name, arguments: args }, undefined, {
              timeout: CALL_BOUND_MS,
            });
            const code = res.isError
              ? (/^Error \(([\w-]+)\)/.exec(
                  String((res.content as Array<{ text?: string }>)[0]?.text),
                )?.[1] ?? "error")
              : "ok";
            outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
            if (process.env.FUZZ_SHOW === code)
              process.stderr.write(
                `${shown} → ${String((res.content as Array<{ text?: string }>)[0]?.text).slice(0, 160)}\n`,
              );
            reply = `${JSON.stringify(res.content)}\n${JSON.stringify(res.structuredContent ?? null)}\n${JSON.stringify(res._meta ?? null)}`;
          } catch (e) {
            // A JSON-RPC error (e.g. a request the SDK refuses) is an answer too; a timeout is not.
            reply = e instanceof Error ? e.message : String(e);
            if (/timed out|timeout/i.test(reply)) problems.push(`past its deadline: ${shown}`);
          }
          const ms = performance.now() - t0;
          if (ms > slowest.ms) slowest = { ms, call: shown };
          if (ms > CALL_BOUND_MS) problems.push(`took ${Math.round(ms)} ms: ${shown}`);
          for (const bad of forbidden) {
            if (reply.includes(bad)) problems.push(`reply to ${shown} contains '${bad.slice(0, 40)}'`);
          }
          if (stackFrame.test(reply))
            problems.push(`stack trace in reply to ${shown}: ${reply.slice(0, 300)}`);
        }),
      );
      done += batch.length;
      assert.ok(isAlive(h.pid), `scalpel died after ${done} calls (seed ${SEED})`);
      if (problems.length > 20) break;
    }
    assert.deepEqual(problems, [], `seed ${SEED}`);
    // Still healthy at the end: it answers, and its answers are right.
    await h.client.ping();
    const config = await h.client.callTool({ name: "get_current_config", arguments: {} });
    assert.notEqual(config.isError, true);
    process.stderr.write(`fuzz outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}\n`);
    process.stderr.write(`fuzz: ${done} calls, slowest ${Math.round(slowest.ms)} ms: ${slowest.call}\n`);
  });
});
