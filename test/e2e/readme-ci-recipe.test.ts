import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { REPO_ROOT } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";

/**
 * The README's CI recipe (`## Testing skills`) runs literally, through the README's own alias,
 * and passes: in an empty folder (the built-in skills alone), and after each scaffold a newcomer
 * makes first (`init`; `new` as a YAML prompt, a YAML tool and an Agent Skills folder).
 */

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const shBlock = (heading: string, contains: string) =>
  fencedBlocks(section(README, heading)).find((b) => b.lang === "sh" && b.body.includes(contains))!.body;
const ALIAS = shBlock("## Install", "alias skill-central=")
  .split("\n")
  .find((l) => l.startsWith("alias skill-central="))!;
const RECIPE = shBlock("## Testing skills", "validate --strict");

const fixtures: Fixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});

/** Runs `setup` (README-style commands) and then the recipe, with `set -e`, in a new empty folder. */
async function recipeAfter(setup: string): Promise<{ code: number; stdout: string; stderr: string; cwd: string }> {
  const fixture = makeFixture();
  fixtures.push(fixture);
  const script = `set -e\nshopt -s expand_aliases\ncd ${JSON.stringify(REPO_ROOT)}\n${ALIAS}\ncd ${JSON.stringify(fixture.cwd)}\n${setup}\n${RECIPE}`;
  const env = { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" };
  return { ...(await runCommand(["bash", "-c", script], fixture.cwd, env)), cwd: fixture.cwd };
}

describe("the README's CI recipe", () => {
  test("is one validate --strict command", () => {
    expect(
      RECIPE.trim()
        .split("\n")
        .map((l) => l.replace(/\s+#.*$/, "")),
    ).toEqual(["skill-central validate --strict"]);
  });

  const cases: [name: string, setup: string, files: number][] = [
    ["an empty folder (the built-in skills only)", "", 11],
    ["init", "skill-central init > /dev/null", 13],
    ["new --type prompt", "skill-central new release-notes --type prompt > /dev/null", 12],
    ["new --type tool", "skill-central new ticket-link --type tool > /dev/null", 12],
    ["new --format skill-md", "skill-central new draft-reply --format skill-md > /dev/null", 12],
    [
      "init, then new in every format",
      "skill-central init > /dev/null\nskill-central new release-notes --type prompt > /dev/null\nskill-central new ticket-link --type tool --layer team > /dev/null\nskill-central new draft-reply --format skill-md > /dev/null",
      16,
    ],
  ];
  for (const [name, setup, files] of cases) {
    test(`passes as given in ${name}`, async () => {
      const run = await recipeAfter(setup);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "" });
      expect(run.stderr).toMatch(
        new RegExp(`^no errors, 0 warnings in ${files} files; \\d+ examples run, 0 failed\\n$`),
      );
    }, 60_000);
  }
});

/**
 * `--strict` is the user's bar, not the product's: a copy of skill-central whose built-in skills
 * have a warning and a field outside the Agent Skills specification still passes `--strict` in
 * an empty project (printing the finding as a note: the form of a skill the project does not own),
 * while the same files in the user's own layer fail it.
 */
describe("validate --strict judges the user's own files, never the built-in skills", () => {
  const LAX_SKILL_MD =
    "---\nname: lax\ndescription: A built-in skill written for Claude Code\nargument-hint: '[topic]'\n---\nWrite about $ARGUMENTS.\n";
  const TYPO_YAML =
    "id: typo\ndescription: Says hi, though one of its fields is misspelled\ntype: prompt\ntgas: [x]\nprompt: Hi\n";
  let copy: Fixture;
  const run = (cwd: string, home: string) =>
    runCommand([process.execPath, join(copy.cwd, "src/cli.ts"), "validate", "--strict"], cwd, {
      HOME: home,
      PATH: process.env.PATH ?? "",
      NO_COLOR: "1",
    });

  test("built-in findings about form are printed as notes and do not fail --strict; the same files in a user layer do", async () => {
    // The source tree with its own skills/ folder (the built-in layer sits beside src/).
    copy = makeFixture({ "skills/lax/SKILL.md": LAX_SKILL_MD, "skills/typo.yaml": TYPO_YAML });
    fixtures.push(copy);
    for (const name of ["src", "package.json", "tsconfig.json"])
      cpSync(join(REPO_ROOT, name), join(copy.cwd, name), { recursive: true });
    symlinkSync(join(REPO_ROOT, "node_modules"), join(copy.cwd, "node_modules"), "dir");

    const empty = makeFixture();
    fixtures.push(empty);
    const builtinOnly = await run(empty.cwd, empty.home);
    expect(builtinOnly.stdout).toBe(
      'builtin:typo.yaml:4:1: note: unknown field "tgas" is ignored (layer "builtin" is not this project\'s to fix) — did you mean "tags"?\n',
    );
    expect(builtinOnly.stderr).toBe("no errors, 0 warnings in 2 files; 0 examples run, 0 failed\n");
    expect(builtinOnly.code).toBe(0);

    const own = makeFixture({
      ".skills/lax/SKILL.md": LAX_SKILL_MD.replaceAll("lax", "mine"),
      ".skills/typo-too.yaml": TYPO_YAML.replace("id: typo", "id: typo-too"),
    });
    fixtures.push(own);
    const mine = await run(own.cwd, own.home);
    expect(mine.code).toBe(1);
    expect(mine.stdout).toContain(
      '.skills/lax/SKILL.md:4:1: error: "argument-hint" is not a field of the Agent Skills specification',
    );
    expect(mine.stdout).toContain('.skills/typo-too.yaml:4:1: warning: unknown field "tgas"');
    expect(mine.stdout).not.toContain("builtin:lax/SKILL.md:4:1: error");
  }, 60_000);
});

describe("the recipe's command in the compiled binary (the built-in skills embedded)", () => {
  let binary: string;
  beforeAll(async () => {
    binary = await buildForTests();
  }, 120_000);

  test("validate --strict passes in an empty folder, and after new scaffolds each format", async () => {
    const fixture = makeFixture();
    fixtures.push(fixture);
    const run = async (...args: string[]) => {
      return runCommand([binary, ...args], fixture.cwd, {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
        NO_COLOR: "1",
      });
    };
    const empty = await run("validate", "--strict");
    expect({ code: empty.code, stdout: empty.stdout }).toEqual({ code: 0, stdout: "" });
    expect(empty.stderr).toMatch(/^no errors, 0 warnings in 11 files; /);
    for (const args of [
      ["new", "p", "--type", "prompt"],
      ["new", "t", "--type", "tool"],
      ["new", "f", "--format", "skill-md"],
    ])
      expect((await run(...args)).code).toBe(0);
    const scaffolded = await run("validate", "--strict");
    expect({ code: scaffolded.code, stdout: scaffolded.stdout }).toEqual({ code: 0, stdout: "" });
    expect(scaffolded.stderr).toMatch(/^no errors, 0 warnings in 14 files; \d+ examples run, 0 failed\n$/);
  }, 60_000);
});
