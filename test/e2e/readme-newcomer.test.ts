import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote } from "../helpers/git-remote.ts";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { connect, REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";

/**
 * The README's newcomer path (issue 51, Done when): from a clone, `add` a collection, and an MCP
 * client lists its skills. The README's own commands run as written, through its own alias, with
 * `set -e`; a bare git repository on disk stands in for github.com/anthropics/skills (git's
 * `url.<base>.insteadOf` in the test HOME's ~/.gitconfig: no network); then the SDK's own client,
 * started in the folder the commands made, lists the added skills.
 */

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const HEADING = "## A team's collection in one command";
const shBlock = (heading: string, contains: string) =>
  fencedBlocks(section(README, heading)).find((b) => b.lang === "sh" && b.body.includes(contains))?.body ?? "";
const ALIAS = shBlock("## Install", "alias skill-central=")
  .split("\n")
  .find((l) => l.startsWith("alias skill-central="))!;
const PATH_BLOCK = shBlock(HEADING, "skill-central add ");

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nFollow the steps of ${name}, one at a time.\n`;

let fixture: Fixture;
let run: { code: number; stdout: string; stderr: string };
let project: string;

beforeAll(async () => {
  fixture = makeFixture();
  const owner = join(fixture.root, "github", "anthropics");
  const remote = makeRemote(owner, "skills.git");
  remote.commit({
    "skills/pdf-forms/SKILL.md": skillMd("pdf-forms", "Fill in PDF forms from structured data and check every field"),
    "skills/slide-decks/SKILL.md": skillMd("slide-decks", "Build a slide deck from an outline, one idea per slide"),
    "README.md": "A collection of skills.\n",
  });
  // git, run by skill-central, reads github.com/anthropics/skills.git from the bare repository.
  writeFileSync(
    join(fixture.home, ".gitconfig"),
    `[url "file://${join(fixture.root, "github")}/"]\n\tinsteadOf = https://github.com/\n`,
  );
  const script = `set -e\nshopt -s expand_aliases\ncd ${JSON.stringify(REPO_ROOT)}\n${ALIAS}\ncd ${JSON.stringify(fixture.cwd)}\n${PATH_BLOCK}`;
  run = await runCommand(["bash", "-c", script], fixture.cwd, {
    HOME: fixture.home,
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
  });
  project = join(fixture.cwd, "my-project");
}, 120_000);
afterAll(() => fixture.cleanup());

describe("the README's newcomer path: clone, add a collection, a client lists its skills", () => {
  test("the README has the path as one short block: add a collection, then list", () => {
    const commands = PATH_BLOCK.trim()
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, ""));
    expect(commands).toEqual([
      "mkdir -p my-project && cd my-project",
      "skill-central add anthropics/skills",
      "skill-central list",
    ]);
  });

  test("its commands run as written and succeed; add says what arrived and list shows it", () => {
    expect(run.stderr + run.stdout).not.toContain("command not found");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("pdf-forms");
    expect(run.stdout).toContain("slide-decks");
    const config = readFileSync(join(project, "skill-central.yaml"), "utf8");
    expect(config).toContain("git: https://github.com/anthropics/skills.git");
    expect(JSON.parse(readFileSync(join(project, "skill-central.lock"), "utf8"))).toBeTruthy();
  });

  test("an MCP client (the SDK's) started in the project lists the added skills", async () => {
    const { client, close } = await connect(SOURCE_TARGET, project, fixture.home);
    try {
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toContain("pdf-forms");
      expect(prompts).toContain("slide-decks");
    } finally {
      await close();
    }
  });
});
