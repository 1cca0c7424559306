import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * One supported Bun, said the same way everywhere: package.json's `engines` states the range,
 * .ci/run tests its oldest version, and the README installs that very version (a newcomer who
 * follows it runs what CI ran) and names the same floor.
 */
const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const engines = (JSON.parse(read("package.json")) as { engines: { bun: string } }).engines.bun;
const ciPin = /^BUN_VERSION="([^"]+)"$/m.exec(read(".ci/run"))?.[1];
const install = section(read("README.md"), "## Install");

describe("the supported Bun", () => {
  test("engines is a floor .ci/run tests: the pinned version is the lowest the range admits", () => {
    expect(ciPin).toMatch(/^\d+\.\d+\.\d+$/);
    expect(engines).toBe(`>=${ciPin}`);
    expect(Bun.semver.satisfies(ciPin!, engines)).toBe(true);
  });

  test("the README's install commands install the version .ci/run pins", () => {
    const commands = fencedBlocks(install)
      .filter((b) => b.lang === "sh")
      .map((b) => b.body)
      .join("\n");
    const npm = [...commands.matchAll(/npm install -g bun(@\S+)?/g)].map((m) => m[1]);
    const script = [...commands.matchAll(/bun\.sh\/install \| bash(?: -s (\S+))?/g)].map((m) => m[1]);
    expect({ npm, script }).toEqual({ npm: [`@${ciPin}`], script: [`bun-v${ciPin}`] });
  });

  test("the README names the range engines states", () => {
    expect(install).toContain(`runs on Bun ${ciPin} or later`);
  });

  test("this suite runs on a Bun the range admits", () => {
    expect({ bun: Bun.version, supported: Bun.semver.satisfies(Bun.version, engines) }).toEqual({
      bun: Bun.version,
      supported: true,
    });
  });
});
