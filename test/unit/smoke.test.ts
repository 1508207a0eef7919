import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError } from "../../src/errors.js";

test("AppError carries its code", () => {
  const e = new AppError("symbol_not_found", "Symbol 'x' not found.");
  assert.equal(e.code, "symbol_not_found");
});
