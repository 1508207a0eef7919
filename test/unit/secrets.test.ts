import * as assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SecretRules } from "../../src/security/secrets.js";

test("default deny list", () => {
  const rules = new SecretRules([]);
  for (const p of [
    ".env",
    ".env.local",
    "app/.env.production",
    "certs/server.pem",
    "tls.key",
    "id_rsa",
    "home/.ssh/id_rsa.pub",
    "id_ed25519",
    "store.p12",
    "store.pfx",
    ".npmrc",
    ".envrc",
  ]) {
    assert.equal(rules.isSecret(p), true, p);
  }
  for (const p of ["src/env.ts", "environment.md", "keys.ts", "src/key.tsx", "README.md", "docs/env/.x"]) {
    assert.equal(rules.isSecret(p), false, p);
  }
});

test("templates of .env are readable", () => {
  const rules = new SecretRules([]);
  assert.equal(rules.isSecret(".env.example"), false);
  assert.equal(rules.isSecret("web/.env.sample"), false);
});

test("a matching directory makes its contents secret", () => {
  const rules = new SecretRules(["secrets", "config/prod/*.yml"]);
  assert.equal(rules.isSecret("secrets/db.txt"), true);
  assert.equal(rules.isSecret("a/secrets/db.txt"), true);
  assert.equal(rules.isSecret("config/prod/db.yml"), true);
  assert.equal(rules.isSecret("config/dev/db.yml"), false);
});

test("extra patterns deny, '!' patterns allow", () => {
  const rules = new SecretRules(["*.secret.json", "!.env.test", "# comment", ""]);
  assert.equal(rules.isSecret("x/creds.secret.json"), true);
  assert.equal(rules.isSecret(".env.test"), false);
  assert.equal(rules.isSecret(".env"), true);
});

test("the more specific rule wins: a project '!' re-opens one file of a denied directory", () => {
  const rules = new SecretRules(["src/vault/**", "!src/vault/readme.md", "!config"]);
  assert.equal(rules.isSecret("src/vault"), true, "a '**' glob covers the directory itself");
  assert.equal(rules.isSecret("src/vault/creds.ts"), true);
  assert.equal(rules.isSecret("src/vault/readme.md"), false);
  assert.equal(rules.isSecret("config/app.yml"), false);
  assert.equal(rules.isSecret("config/tls.key"), true, "a deny deeper than the allow still holds");
});

test("a built-in template inside a denied directory stays secret", () => {
  const rules = new SecretRules(["secrets"]);
  assert.equal(rules.isSecret("secrets/.env.example"), true);
  assert.equal(rules.isSecret(".env.example"), false);
});

test("one home: only the sandbox asks whether a path is secret", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const full = join(dir, n);
      return statSync(full).isDirectory() ? walk(full) : n.endsWith(".ts") ? [full] : [];
    });
  const askers = [...walk(join(root, "src")), ...walk(join(root, "language-servers"))]
    .filter((f) => /\.isSecret\(|assertNotSecret/.test(readFileSync(f, "utf8")))
    .map((f) => relative(root, f).split("\\").join("/"))
    .sort();
  assert.deepEqual(askers, ["src/security/sandbox.ts"]);
});
