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

test("credentials of common tools are secret by default, at the root or deeper", () => {
  const rules = new SecretRules([]);
  for (const p of [
    ".git/config",
    "vendor/lib/.git/config",
    ".aws/credentials",
    "home/.aws/credentials",
    ".docker/config.json",
    ".kube/config",
    "kubeconfig",
    "deploy/kubeconfig",
    ".yarnrc.yml",
    "credentials.json",
    "gcp/credentials.json",
    "prod.tfvars",
    "infra/terraform.tfvars",
    "infra/prod.auto.tfvars.json",
    ".pgpass",
    "web/.htpasswd",
    "config/secrets.yml",
    "secrets.yaml",
  ]) {
    assert.equal(rules.isSecret(p), true, p);
  }
  for (const p of [
    ".git/HEAD",
    ".gitconfig.md",
    "src/git/config.ts",
    ".aws/config",
    "docker/config.json",
    "credentials.ts",
    "variables.tf",
    "secrets.md",
    "src/kubeconfig.ts",
  ]) {
    assert.equal(rules.isSecret(p), false, p);
  }
});

test("deny patterns match in any letter case; allows only as written", () => {
  const rules = new SecretRules(["Vault/**", "!.env.ci"]);
  for (const p of [
    ".ENV",
    ".Env.Local",
    "ID_RSA",
    "certs/SERVER.PEM",
    ".GIT/CONFIG",
    ".NPMRC",
    "vault/x.ts",
    "VAULT/x.ts",
  ]) {
    assert.equal(rules.isSecret(p), true, p);
  }
  assert.equal(rules.isSecret(".env.ci"), false);
  assert.equal(rules.isSecret(".ENV.CI"), true, "an allow re-opens only the spelling it names");
  assert.equal(rules.isSecret(".ENV.EXAMPLE"), true, "templates are exempt only as spelled");
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

test("a project inside another keeps the enclosing project's deny patterns, never its allowances", () => {
  // The enclosing project declares src/vault/** secret and re-opens .env.local; `src` is activated.
  const rules = new SecretRules([], [{ prefix: "src", patterns: ["src/vault/**", "!src/.env.local"] }]);
  assert.equal(rules.isSecret("vault/keys.ts"), true);
  assert.equal(rules.isSecret("vault"), true);
  assert.equal(rules.isSecret("app.ts"), false);
  assert.equal(rules.isSecret(".env.local"), true, "the default still holds: an allowance is not inherited");
  // Two levels up: the prefix carries the whole way.
  const deep = new SecretRules([], [{ prefix: "packages/api", patterns: ["packages/api/config/*.json"] }]);
  assert.equal(deep.isSecret("config/prod.json"), true);
  assert.equal(deep.isSecret("src/config/prod.json"), false);
});
