/**
 * The pure parts of the code action tools: which offered action a title and/or kind names (exactly
 * one, or nothing applied), how lines become the range sent to the server, and the collector that
 * takes a server's workspace/applyEdit only while a command runs.
 */
import * as assert from "node:assert/strict";
import { describe, test } from "node:test";
import { chooseAction } from "../../src/code-actions/choose.js";
import { kindMatches, linesRange, type OfferedAction } from "../../src/code-actions/offered.js";
import { AppError } from "../../src/core/errors.js";
import { ServerEdits } from "../../src/lsp/server-edits.js";

const action = (title: string, kind?: string): OfferedAction => ({
  title,
  ...(kind ? { kind } : {}),
  diagnostics: [],
  preferred: false,
  raw: { title, ...(kind ? { kind } : {}) },
});

const offered = [
  action('Add import from "./money"', "quickfix"),
  action("Extract to function in module scope", "refactor.extract.function"),
  action("Extract to constant in enclosing scope", "refactor.extract.constant"),
  action("Organize Imports", "source.organizeImports.ts"),
  action("Sort Imports", "source.sortImports.ts"),
];

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof AppError ? e.code : "not an AppError";
  }
  return "no error";
};

describe("chooseAction", () => {
  test("an exact title, a unique part of one (any case), a kind prefix", () => {
    assert.equal(chooseAction(offered, "Sort Imports", undefined, "here").title, "Sort Imports");
    assert.equal(chooseAction(offered, "module scope", undefined, "here").kind, "refactor.extract.function");
    assert.equal(
      chooseAction(offered, undefined, "source.organizeImports", "here").title,
      "Organize Imports",
    );
    assert.equal(
      chooseAction(offered, "extract", "refactor.extract.constant", "here").kind,
      "refactor.extract.constant",
    );
  });

  test("several matches, none, or nothing asked: an error, nothing chosen", () => {
    assert.equal(
      code(() => chooseAction(offered, "imports", undefined, "here")),
      "multiple_matches",
    );
    assert.equal(
      code(() => chooseAction(offered, undefined, "refactor", "here")),
      "multiple_matches",
    );
    assert.equal(
      code(() => chooseAction(offered, "inline", undefined, "here")),
      "no_match",
    );
    assert.equal(
      code(() => chooseAction([], undefined, "quickfix", "here")),
      "no_match",
    );
    assert.equal(
      code(() => chooseAction(offered, undefined, undefined, "here")),
      "invalid_argument",
    );
  });

  test("a kind matches itself and what lies below it, not a longer sibling", () => {
    assert.ok(kindMatches("source.organizeImports.ts", "source.organizeImports"));
    assert.ok(kindMatches("quickfix", "quickfix"));
    assert.ok(!kindMatches("source.organizeImportsX", "source.organizeImports"));
    assert.ok(!kindMatches(undefined, "quickfix"));
  });
});

describe("linesRange", () => {
  const text = "a\n    let x = 1;  \n\n  return x;\n";
  test("from the first non-blank character to the last one", () => {
    assert.deepEqual(linesRange(text, 2, 4), {
      start: { line: 1, character: 4 },
      end: { line: 3, character: 11 },
    });
    assert.deepEqual(linesRange(text, 3, 3), {
      start: { line: 2, character: 0 },
      end: { line: 2, character: 0 },
    });
  });
  test("lines outside the file, or reversed, are refused", () => {
    assert.equal(
      code(() => linesRange(text, 9, 9)),
      "invalid_argument",
    );
    assert.equal(
      code(() => linesRange(text, 3, 2)),
      "invalid_argument",
    );
  });
});

describe("ServerEdits", () => {
  const edit = { changes: { "file:///x.ts": [] } };
  test("refused outside a command, collected during one", async () => {
    const edits = new ServerEdits();
    assert.equal(edits.receive({ edit }).applied, false);
    const ran = await edits.collect(async () => {
      assert.equal(edits.receive({ edit }).applied, true);
      return 7;
    });
    assert.deepEqual(ran, { value: 7, edits: [edit] });
    assert.equal(edits.receive({ edit }).applied, false);
  });
});
