import { afterAll, expect, test } from "bun:test";
import { makeFixture } from "../helpers/fixture.ts";
import { runBounded } from "../helpers/processes.ts";
import { REPO_ROOT } from "../helpers/server.ts";
import { DEFAULT_TEST_TIMEOUT_MS } from "../preload.ts";

/**
 * The README's `bun test` gives every test the suite's default timeout (test/preload.ts), not
 * Bun's 5 s: checked on a run of its own, in this repository (so with its bunfig.toml), over two
 * files whose test waits on a 6 s timer. Two files, because Bun keeps a preload's default for the
 * first file of a run only: whichever runs second shows whether every file has it.
 */
const fixture = makeFixture();
afterAll(() => fixture.cleanup());

const WAITS_6_S = `import { expect, test } from "bun:test";
test("waits on a 6 s timer", async () => {
  const waited = await new Promise<string>((resolve) => setTimeout(() => resolve("done"), 6000));
  expect(waited).toBe("done");
});
`;

test("the default is above Bun's 5 s, with room for a busy machine", () => {
  expect(DEFAULT_TEST_TIMEOUT_MS).toBeGreaterThanOrEqual(30_000);
});

test("bun test, as the README runs it, lets a test of every file wait past 5 s", async () => {
  const files = ["first", "second"].map((name) => fixture.write(`${name}.test.ts`, WAITS_6_S));
  const run = await runBounded([process.execPath, "test", ...files], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    timeoutMs: 110_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(output).not.toContain("timed out after");
  expect(output).toMatch(/^\s*2 pass$/m);
  expect(output).toMatch(/^\s*0 fail$/m);
  expect(run.code).toBe(0);
}, 120_000);

test("bunfig.toml has no [test] timeout key, which Bun ignores and would only mislead", async () => {
  const bunfig = Bun.TOML.parse(await Bun.file(`${REPO_ROOT}/bunfig.toml`).text()) as {
    test?: Record<string, unknown>;
  };
  expect(bunfig.test?.timeout).toBeUndefined();
  expect(bunfig.test?.preload).toEqual(["./test/preload.ts"]);
});
