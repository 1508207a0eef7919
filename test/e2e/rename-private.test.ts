// @backends tsserver native:full
/**
 * Private names (#19): `#a` → `#b` renames an ECMAScript private member and compiles; `#a` → `b`
 * would make it public (tsc still passes, measured) and is refused unless change_visibility is set.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, readText, runTsc, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import { call, callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const clock = [
  "export class Clock {",
  "  #currentTime = 0;",
  "",
  "  tick(): number {",
  "    this.#currentTime += 1;",
  "    return this.#currentTime;",
  "  }",
  "",
  "  same(other: Clock): boolean {",
  "    return other.#currentTime === this.#currentTime;",
  "  }",
  "}",
  "",
].join("\n");

describe("renaming private names (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject();
    await writeTsconfig(fx.dir);
    await mkdir(join(fx.dir, "src"), { recursive: true });
    await writeFile(join(fx.dir, "src/clock.ts"), clock);
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("#currentTime → #now renames every use and compiles", async () => {
    await callOk(h, "rename_symbol", {
      name_path: "Clock/#currentTime",
      relative_path: "src/clock.ts",
      new_name: "#now",
    });
    const text = await readText(fx.dir, "src/clock.ts");
    assert.equal(text, clock.replaceAll("#currentTime", "#now"));
    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);
  });

  it("#now → now is refused without change_visibility, and nothing is written", async () => {
    const before = await readText(fx.dir, "src/clock.ts");
    const r = await call(h.client, "rename_symbol", {
      name_path: "Clock/#now",
      relative_path: "src/clock.ts",
      new_name: "now",
    });
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /invalid_argument/);
    assert.match(r.text, /change_visibility/);
    assert.equal(await readText(fx.dir, "src/clock.ts"), before);
  });

  it("#now → now with change_visibility: true makes it public, as asked", async () => {
    await callOk(h, "rename_symbol", {
      name_path: "Clock/#now",
      relative_path: "src/clock.ts",
      new_name: "now",
      change_visibility: true,
    });
    const text = await readText(fx.dir, "src/clock.ts");
    assert.ok(!text.includes("#now") && text.includes("this.now += 1;"), text);
  });
});
