/** The user-level project registry (name → root), always in a temporary SCALPEL_HOME. */
import * as assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isProjectName, ProjectRegistry, registryFile, scalpelHome } from "../../src/config/registry.js";
import { AppError } from "../../src/core/errors.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let registry: ProjectRegistry;

before(async () => {
  tmp = await makeTempProject("scalpel-registry-");
  registry = new ProjectRegistry(registryFile({ SCALPEL_HOME: join(tmp.base, "home") }));
});
after(() => tmp.cleanup());

test("SCALPEL_HOME decides where the registry lives; ~/.scalpel otherwise", () => {
  assert.equal(scalpelHome({ SCALPEL_HOME: "/x/y" }), "/x/y");
  assert.match(scalpelHome({}), /\.scalpel$/);
  assert.equal(registryFile({ SCALPEL_HOME: "/x/y" }), "/x/y/projects.json");
});

test("register and look up; a missing file is an empty registry", async () => {
  assert.equal(await registry.lookup("shop"), null);
  assert.deepEqual(await registry.names(), []);
  await registry.register("shop", "/projects/shop");
  await registry.register("api", "/projects/api");
  assert.equal(await registry.lookup("shop"), "/projects/shop");
  assert.deepEqual(await registry.names(), ["api", "shop"]);
  const json = JSON.parse(await readFile(registry.file, "utf8")) as unknown;
  assert.deepEqual(json, { projects: { api: { root: "/projects/api" }, shop: { root: "/projects/shop" } } });
});

test("the last activation takes a name; a renamed project drops its old name", async () => {
  await registry.register("shop", "/elsewhere/shop");
  assert.equal(await registry.lookup("shop"), "/elsewhere/shop");
  await registry.register("store", "/elsewhere/shop");
  assert.equal(await registry.lookup("shop"), null);
  assert.equal(await registry.lookup("store"), "/elsewhere/shop");
});

test("names that look like paths are not registered", async () => {
  for (const n of ["a/b", "../x", "", ".hidden", "a b"]) assert.equal(isProjectName(n), false, n);
  await registry.register("a/b", "/x");
  assert.equal(await registry.lookup("a/b"), null);
});

test("a broken registry file is reported and never overwritten", async () => {
  await writeFile(registry.file, "{ not json");
  await assert.rejects(
    registry.lookup("shop"),
    (e: unknown) => e instanceof AppError && e.code === "invalid_config",
  );
  await assert.rejects(registry.register("x", "/x"));
  assert.equal(await readFile(registry.file, "utf8"), "{ not json");
  assert.deepEqual(await registry.names(), []);
});
