// @alone sets SCALPEL_DART, which the adapter's cached probe reads
// Dart adapter quirks, checked against message shapes from the Dart analysis server's LSP
// documentation (dart-lang/sdk pkg/analysis_server/tool/lsp_spec/README.md), because no Dart SDK
// could be installed where this was written.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { dartAdapter, findDart, normalizeDartSymbols } from "../../language-servers/dart.js";
import { log } from "../../src/core/log.js";
import { Readiness } from "../../src/lsp/readiness.js";
import type { ReadinessRule } from "../../src/lsp/types.js";

const quiet = { ...log, debug: () => {}, info: () => {}, warn: () => {}, child: () => quiet };
const r = (l: number) => ({ start: { line: l, character: 0 }, end: { line: l, character: 10 } });

test("qualified member names lose the qualifier that names their parent (lsp-notes: `Foo.bar`)", () => {
  const symbols: DocumentSymbol[] = [
    {
      name: "Foo",
      kind: SymbolKind.Class,
      range: { start: { line: 0, character: 0 }, end: { line: 9, character: 1 } },
      selectionRange: r(0),
      children: [
        { name: "Foo.named", kind: SymbolKind.Constructor, range: r(2), selectionRange: r(2) },
        { name: "Foo", kind: SymbolKind.Constructor, range: r(1), selectionRange: r(1) },
        { name: "Foo.bar", kind: SymbolKind.Method, range: r(3), selectionRange: r(3) },
      ],
    },
    { name: "Ext.helper", kind: SymbolKind.Function, range: r(11), selectionRange: r(11) },
  ];
  const out = normalizeDartSymbols(symbols);
  assert.deepEqual(
    out[0]?.children?.map((c) => c.name),
    ["Foo", "named", "bar"],
  );
  assert.equal(out[1]?.name, "Ext.helper", "no parent to carry the qualifier");
});

/** The adapter's readiness rule, with a short settle so the test runs fast; any executable stands in for dart. */
function declaredRule(): ReadinessRule {
  const saved = process.env.SCALPEL_DART;
  process.env.SCALPEL_DART = process.execPath;
  try {
    const spec = dartAdapter.spec("/tmp");
    assert.ok(!("missing" in spec));
    assert.equal(spec.readiness.status?.method, "$/analyzerStatus");
    return { ...spec.readiness, settleMs: 20, maxWaitMs: 5_000 };
  } finally {
    if (saved === undefined) delete process.env.SCALPEL_DART;
    else process.env.SCALPEL_DART = saved;
  }
}

test('readiness follows `$/analyzerStatus` { isAnalyzing } (doc: "$/analyzerStatus Notification")', async () => {
  const rd = new Readiness(declaredRule(), quiet, () => {});
  assert.equal(rd.indexing, false, "idle until a status says analysing");
  rd.status({ isAnalyzing: true });
  assert.equal(rd.indexing, true);
  let ready = false;
  const waiting = rd.initialLoad().then(() => {
    ready = true;
  });
  await new Promise((res) => setTimeout(res, 60));
  assert.equal(ready, false, "still analysing");
  rd.status({ isAnalyzing: false });
  await waiting;
  assert.equal(rd.indexing, false);
});

test('readiness follows $/progress when the client supports workDoneProgress (doc: status "not sent … sent using $/progress")', async () => {
  const rd = new Readiness(declaredRule(), quiet, () => {});
  rd.created("ANALYZING");
  rd.progress("ANALYZING", { kind: "begin", title: "Analyzing…" });
  assert.equal(rd.indexing, true);
  let ready = false;
  const waiting = rd.initialLoad().then(() => {
    ready = true;
  });
  await new Promise((res) => setTimeout(res, 60));
  assert.equal(ready, false);
  rd.progress("ANALYZING", { kind: "end" });
  await waiting;
  assert.equal(rd.indexing, false);
});

test("launch spec: `dart language-server --protocol=lsp`, push diagnostics, analysis of the whole folder", () => {
  const saved = process.env.SCALPEL_DART;
  process.env.SCALPEL_DART = process.execPath; // any executable stands in for dart
  try {
    const spec = dartAdapter.spec("/tmp");
    assert.ok(!("missing" in spec));
    assert.deepEqual(spec.launch.args.slice(0, 2), ["language-server", "--protocol=lsp"]);
    assert.equal(spec.diagnostics, "push");
    // Doc, "Initialization Options": onlyAnalyzeProjectsWithOpenFiles (bool?) defaults to false.
    assert.equal(
      (spec.initializationOptions as Record<string, unknown>).onlyAnalyzeProjectsWithOpenFiles,
      false,
    );
  } finally {
    if (saved === undefined) delete process.env.SCALPEL_DART;
    else process.env.SCALPEL_DART = saved;
  }
  assert.deepEqual(dartAdapter.extensions, [".dart"]);
  assert.deepEqual(dartAdapter.ignoredDirs, [".dart_tool", "build"]);
});

test("the Flutter SDK's dart is used when only `flutter` is on PATH", async () => {
  const { mkdtemp, writeFile, chmod, rm, mkdir } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = await mkdtemp(join(tmpdir(), "scalpel-flutter-"));
  try {
    await mkdir(join(dir, "bin"));
    for (const name of ["flutter", "dart"]) {
      await writeFile(join(dir, "bin", name), "#!/bin/sh\n");
      await chmod(join(dir, "bin", name), 0o755);
    }
    assert.deepEqual(findDart({ PATH: join(dir, "bin") }), {
      command: join(dir, "bin", "dart"),
      from: "PATH",
    });
    await rm(join(dir, "bin", "dart"));
    await mkdir(join(dir, "flutter", "bin"), { recursive: true });
    await writeFile(join(dir, "flutter", "bin", "dart"), "#!/bin/sh\n");
    await chmod(join(dir, "flutter", "bin", "dart"), 0o755);
    await rm(join(dir, "bin", "flutter"));
    const { symlink } = await import("node:fs/promises");
    await symlink(join(dir, "flutter", "bin", "dart"), join(dir, "bin", "flutter"));
    assert.deepEqual(findDart({ PATH: join(dir, "bin") }), {
      command: join(dir, "flutter", "bin", "dart"),
      from: "Flutter SDK",
    });
    assert.equal(findDart({ PATH: join(dir, "nowhere") }), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
