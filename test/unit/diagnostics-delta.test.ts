// The delta's matching: a diagnostic is the same before and after when its file, severity, code
// and message are, wherever the edit moved it and whatever symbol it is now found in (measured on
// serde_json and rxjs: keying on the containing symbol listed the same hints as new AND resolved).
import assert from "node:assert/strict";
import { test } from "node:test";
import { minus } from "../../src/diagnostics/delta.js";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";

function d(line: number, message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return {
    severity: "hint",
    line,
    column: 5,
    message,
    code: "unused",
    relative_path: "src/a.rs",
    ...extra,
  };
}

test("a diagnostic moved by the edit, or now in another symbol, is neither new nor resolved", () => {
  const before = [d(10, "unused variable `x`", { symbol: "a" }), d(20, "unused variable `y`")];
  const after = [d(14, "unused variable `x`"), d(24, "unused variable `y`", { symbol: "Foo/b" })];
  assert.deepEqual(minus(after, before), []);
  assert.deepEqual(minus(before, after), []);
});

test("counts matter: one of two identical diagnostics gone is one resolved", () => {
  const before = [d(10, "same"), d(30, "same")];
  const after = [d(31, "same")];
  assert.deepEqual(minus(after, before), []);
  // The one left unmatched is the one far from every diagnostic after the edit.
  assert.deepEqual(
    minus(before, after).map((x) => x.line),
    [10],
  );
});

test("another file, severity, code or message is another diagnostic", () => {
  const base = d(10, "m");
  for (const other of [
    d(10, "m", { relative_path: "src/b.rs" }),
    d(10, "m", { severity: "error" }),
    d(10, "m", { code: "E0433" }),
    d(10, "n"),
  ]) {
    assert.deepEqual(minus([other], [base]), [other]);
    assert.deepEqual(minus([base], [other]), [base]);
  }
});
