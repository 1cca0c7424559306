import { plugin } from "bun";

/**
 * The suite's default per-test timeout, for every test file however `bun test` is run (the
 * README's plain `bun test`, one file, a filter). Where Bun would read it, it does not:
 * - Bun 1.4 has no `[test] timeout` key in bunfig.toml (it is ignored without a word);
 * - `setDefaultTimeout()` called here lasts for the first test file only: Bun resets the default
 *   after each file, and a preload runs once per run;
 * - `--timeout` is a command-line flag, which a plain `bun test` does not pass.
 * So every test file calls `setDefaultTimeout()` itself, first thing: this plugin adds the call as
 * Bun loads the file, on its first line (line numbers in failures stay right). A file's own
 * `setDefaultTimeout()` and a test's own timeout still win. test/unit/test-timeout.test.ts checks
 * that it holds in every file of a run.
 *
 * 30 s: end-to-end tests spawn real servers, and a 2-core CI machine may be busy; a test that
 * needs more (CPU-heavy property tests, builds) says so with its own timeout.
 */
export const DEFAULT_TEST_TIMEOUT_MS = 30_000;

const PREFIX = `import { setDefaultTimeout as __skillCentralSetDefaultTimeout } from "bun:test"; __skillCentralSetDefaultTimeout(${DEFAULT_TEST_TIMEOUT_MS}); `;

plugin({
  name: "skill-central default test timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents: PREFIX + (await Bun.file(path).text()),
      loader: "ts",
    }));
  },
});
