/** What of a secret file's text the output gate hides (src/security/secret-needles.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { looksSecret, secretNeedles } from "../../src/security/secret-needles.js";

test("source code: string literals that could be credentials, not module names nor identifiers", () => {
  const placeholder = `${"$"}{token}`;
  const text = [
    'import { readFileSync } from "node:fs";',
    'const helper = require("./local-helper");',
    'export const STRIPE_SECRET_KEY_PRODUCTION_2024 = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";',
    "export const mode = 'development';",
    `export const template = \`Bearer ${placeholder}\`;`,
  ].join("\n");
  const needles = secretNeedles("src/vault.ts", text);
  assert.ok(needles.includes("sk_live_4eC39HqLyjWDarjtT1zdp7dc"));
  assert.ok(needles.includes(`Bearer ${placeholder}`));
  assert.ok(!needles.includes("node:fs") && !needles.includes("./local-helper"), needles.join(" | "));
  assert.ok(!needles.includes("development"), "a plain word is no credential");
  assert.ok(
    !needles.some((n) => n.includes("STRIPE_SECRET_KEY")),
    "identifiers stay: other files import them",
  );
});

test("a credentials file: values of its lines and long tokens, not its plain settings", () => {
  const text = [
    "# local settings",
    "DATABASE_URL=postgres://app:hunter2@db.internal:5432/app",
    'API_TOKEN="ghp_abcdefghijklmnopqrstuvwxyz0123456789"',
    "NODE_ENV=development",
    "PORT=3000",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
  ].join("\n");
  const needles = secretNeedles(".env", text);
  assert.ok(needles.includes("postgres://app:hunter2@db.internal:5432/app"), needles.join(" | "));
  assert.ok(needles.includes("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
  assert.ok(needles.includes("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"));
  assert.ok(!needles.includes("development") && !needles.includes("3000"), needles.join(" | "));
});

test("looksSecret: two kinds of character or long; short or repetitive strings never", () => {
  assert.equal(looksSecret("sk_live"), true);
  assert.equal(looksSecret("Hunter2"), true);
  assert.equal(looksSecret("localhost"), false);
  assert.equal(looksSecret("abc1"), false, "under six characters");
  assert.equal(looksSecret("--------"), false, "too few distinct characters");
  assert.equal(looksSecret("averyveryverylongword"), true, "16 or more");
});
