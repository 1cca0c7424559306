import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * A newcomer's test command is the quick suite (`bun run test:quick`: the unit tests and a few
 * fast end-to-end files, about a minute on 2 cores); CI runs the full `bun test`. The README's
 * first screen names the quick one, .ci/run the full one, and the quick list names files that
 * exist, so a renamed test cannot quietly drop out of it.
 */
const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;
const quick = scripts["test:quick"] ?? "";
const quickPaths = quick.split(/\s+/).slice(2);
const e2eFiles = readdirSync(join(REPO_ROOT, "test", "e2e")).map((f) => `test/e2e/${f}`);

describe("the quick suite", () => {
  test("is `bun test` over the unit tests and named end-to-end files", () => {
    expect(quick.startsWith("bun test ")).toBe(true);
    expect(quickPaths).toContain("test/unit");
  });

  test("names only end-to-end files that exist (each filter matches one test file)", () => {
    const e2e = quickPaths.filter((p) => p.startsWith("test/e2e/"));
    expect(e2e.length).toBeGreaterThan(0);
    for (const path of e2e) expect(e2eFiles.filter((f) => f === `${path}.test.ts`)).toEqual([`${path}.test.ts`]);
  });

  test("spawns a real server over stdio and over HTTP", () => {
    expect(quickPaths).toContain("test/e2e/protocol-source");
    expect(quickPaths).toContain("test/e2e/http-source");
    expect(existsSync(join(REPO_ROOT, "test/e2e/protocol-source.test.ts"))).toBe(true);
  });
});

describe("the README and CI", () => {
  test("the README's first code block gives the server and the quick suite", () => {
    const firstBlock = /The two commands a newcomer needs[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const commands = firstBlock.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim());
    expect(commands.filter(Boolean)).toEqual(["bun src/cli.ts mcp", "bun run test:quick"]);
  });

  test("the README says that `bun test` is the full suite CI runs", () => {
    expect(readme).toMatch(/`bun test` runs the full suite, which CI runs/);
  });

  test(".ci/run runs the full suite, not the quick one", () => {
    const ci = readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8");
    expect(ci).toMatch(/^bun test 2>&1 \| tee "\$log"$/m);
    expect(ci).not.toContain("test:quick");
  });
});
