/**
 * `skill-central eval` in the compiled binary: the built-in skills' trigger sets are embedded
 * with them, and TypeBox's schema module and jsonc-parser (loaded on first use) still load once
 * bundled, so the binary gives the source entry's report, and a schema error's line:col.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCommand } from "./cli-run.ts";

describe("eval in the compiled binary", () => {
  let binary: string;
  let empty: Fixture;
  let bad: Fixture;
  beforeAll(async () => {
    binary = await buildForTests();
    empty = makeFixture({});
    bad = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/greet.yaml": "id: greet\ndescription: Greet someone by name with a message\ntype: prompt\nprompt: Hi\n",
      ".skills/greet.eval_set.json": '[\n  {"query": "say hi", "should_trigger": "yes"}\n]\n',
    });
  }, 600_000);
  afterAll(() => {
    empty?.cleanup();
    bad?.cleanup();
  });

  const env = (f: Fixture) => ({ HOME: f.home, PATH: process.env.PATH ?? "" });

  test("the built-ins' routing report equals the source entry's", async () => {
    const fromBinary = await runCommand([binary, "eval", "--json"], empty.cwd, env(empty));
    const fromSource = await runCli(["eval", "--json"], empty.cwd, empty.home);
    expect(fromBinary.code).toBe(0);
    expect(JSON.parse(fromBinary.stdout).skills.length).toBe(11);
    expect(JSON.parse(fromBinary.stdout)).toEqual(JSON.parse(fromSource.stdout));
  });

  test("an invalid trigger set: exit 1, the error at file:line:col", async () => {
    const run = await runCommand([binary, "eval"], bad.cwd, env(bad));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(".skills/greet.eval_set.json:2:41: error: [0].should_trigger");
  });
});
