// @alone it counts the machine's processes (a server another file left running would be one)
// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Acceptance 4 of issue #10 over the built CLI and a real typescript-language-server: SIGKILL of
 * the `tsserver.js` child alone (the tsls wrapper stays up and, unwatched, answers `[]`). The next
 * answers say the server is unhealthy or come from a restarted one — never `complete: true` with
 * missing references; safe_delete_symbol refuses meanwhile; after the restart the references are
 * whole again. The tree is read from /proc, so this runs on Linux only.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { sitesOfFile } from "../../src/references/listing.js";
import { hashTree, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, serveFixture, stopServing, type ToolResult } from "../helpers/mcp.js";

const method = { name_path: "Money/multiplyByRate", relative_path: "src/money.ts" };
const linux = process.platform === "linux";

interface ServerInfo {
  servers: Array<{ language: string; status: string; pid?: number; restarts: number; detail?: string }>;
}

/** Every `file:line` site in an answer, whatever shape groups them (flat list or per file). */
function sites(value: unknown, file?: string, out: string[] = []): string[] {
  // A references answer's file entry is a string: its path line, then a line per site.
  if (typeof value === "string" && /\n\d/.test(value)) {
    for (const x of sitesOfFile(value))
      if (!x.import) out.push(`${x.relative_path}:${x.line}:${x.column ?? ""}`);
  } else if (Array.isArray(value)) {
    for (const v of value) sites(v, file, out);
  } else if (typeof value === "object" && value !== null) {
    const o = value as Record<string, unknown>;
    const here = typeof o.relative_path === "string" ? o.relative_path : file;
    if (typeof o.line === "number" && here !== undefined) out.push(`${here}:${o.line}:${o.column ?? ""}`);
    for (const [k, v] of Object.entries(o)) if (k !== "symbol") sites(v, here, out);
  }
  return out.sort();
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
    for (const c of text.split(" ")) if (c.trim() !== "") out.push(Number(c));
  }
  return out;
}

async function tsserverPid(h: ScalpelHandle): Promise<number> {
  const info = await callOk<ServerInfo>(h, "get_current_config");
  const tsls = info.servers.find((s) => s.language === "typescript")?.pid;
  assert.ok(tsls !== undefined, `typescript server running: ${JSON.stringify(info.servers)}`);
  const found = childrenOf(tsls).filter((c) =>
    readFileSync(`/proc/${c}/cmdline`, "utf8")
      .split("\0")
      .some((a) => a.endsWith("tsserver.js")),
  );
  assert.equal(found.length, 1, "one tsserver under tsls");
  return found[0] as number;
}

/** An answer is acceptable when it refuses, says it is incomplete, or is whole. */
function assertTruthful(r: ToolResult<Record<string, unknown>>, whole: string[], when: string): void {
  if (r.isError) {
    assert.match(r.text, /server_crashed|language_server_unavailable/, `${when}: ${r.text}`);
    assert.match(r.text, /tsserver|restart|started again/i, `${when}: says what happened: ${r.text}`);
    return;
  }
  if (r.structured?.complete === false) return;
  assert.deepEqual(
    sites(r.structured?.files ?? r.structured?.references),
    whole,
    `${when}: complete answers are whole`,
  );
}

/** Calls references until an answer is complete (a restart takes seconds); returns it. */
async function wholeAgain(h: ScalpelHandle, whole: string[]): Promise<Record<string, unknown>> {
  const end = Date.now() + 120_000;
  for (;;) {
    const r = await h.call("find_referencing_symbols", method);
    assertTruthful(r, whole, "while restarting");
    if (!r.isError && r.structured?.complete === true) return r.structured;
    assert.ok(Date.now() < end, `no complete answer within 120 s: ${r.text}`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

describe("server health: tsserver killed under a live wrapper (e2e)", {
  skip: !linux && "reads /proc",
}, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let whole: string[];

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
    const r = await callOk<Record<string, unknown>>(h, "find_referencing_symbols", method);
    assert.equal(r.complete, true);
    whole = sites(r.files ?? r.references);
    // format, main, money, report, wallet: the method has callers in 5 files.
    assert.ok(new Set(whole.map((s) => s.split(":")[0])).size >= 4, `callers in several files: ${whole}`);
  });

  after(() => stopServing(h, fx));

  it("the answer right after the kill is not a whole-looking empty one; then references are whole again", async () => {
    const killed = await tsserverPid(h);
    process.kill(killed, "SIGKILL");
    const r = await h.call("find_referencing_symbols", method);
    assertTruthful(r, whole, "right after the kill");
    const again = await wholeAgain(h, whole);
    assert.deepEqual(sites(again.files ?? again.references), whole);
    assert.notEqual(await tsserverPid(h), killed, "a new tsserver answers");
    const info = await callOk<ServerInfo>(h, "get_current_config");
    assert.ok(
      (info.servers.find((s) => s.language === "typescript")?.restarts ?? 0) >= 1,
      "counted as a restart",
    );
  });

  it("safe_delete_symbol refuses while tsserver is dead: the method still has callers", async () => {
    const before1 = await hashTree(fx.dir);
    process.kill(await tsserverPid(h), "SIGKILL");
    const r = await h.call("safe_delete_symbol", method);
    assert.equal(r.isError, true, `must refuse: ${r.text}`);
    assert.match(r.text, /server_crashed|language_server_unavailable|symbol_in_use/, r.text);
    assert.deepEqual(await hashTree(fx.dir), before1, "nothing written");
    await wholeAgain(h, whole);
  });

  it("without any call, the watcher marks the server failed, and the next call restarts it", async () => {
    process.kill(await tsserverPid(h), "SIGKILL");
    let ts: ServerInfo["servers"][number] | undefined;
    const end = Date.now() + 5_000;
    do {
      await new Promise((res) => setTimeout(res, 250));
      ts = (await callOk<ServerInfo>(h, "get_current_config")).servers.find(
        (s) => s.language === "typescript",
      );
    } while (ts?.status !== "failed" && Date.now() < end);
    assert.equal(ts?.status, "failed", `status after the kill: ${JSON.stringify(ts)}`);
    assert.match(ts?.detail ?? "", /lost its tsserver process/);
    const again = await wholeAgain(h, whole);
    assert.deepEqual(sites(again.files ?? again.references), whole);
  });
});
