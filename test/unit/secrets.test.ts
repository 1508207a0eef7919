import * as assert from "node:assert/strict";
import { test } from "node:test";
import { AppError } from "../../src/errors.js";
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

test("assertNotSecret throws secret_file", () => {
  const rules = new SecretRules([]);
  assert.throws(
    () => rules.assertNotSecret(".env"),
    (e) => e instanceof AppError && e.code === "secret_file",
  );
  rules.assertNotSecret("src/a.ts");
});
