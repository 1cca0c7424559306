import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSkills } from "../../src/load/load-skills.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { connect, REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";
import { runCli } from "./cli-run.ts";

/**
 * What the README tells a newcomer to type works as written: the install block's alias and the
 * 30-second example run in a shell and print what the README says they print, the skill it makes
 * is then served to an MCP client, and every skill and config shown on the page is valid.
 */

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const shBlock = (heading: string, contains: string) =>
  fencedBlocks(section(README, heading)).find((b) => b.lang === "sh" && b.body.includes(contains))!.body;

describe("the README's 30-second example", () => {
  let fixture: Fixture;
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    fixture = makeFixture();
    const alias = shBlock("## Install", "alias skill-central=")
      .split("\n")
      .find((l) => l.startsWith("alias skill-central="))!;
    const example = shBlock("## A 30-second example", "cat > .skills/greet.yaml");
    // The alias is defined in the checkout, as the install block does; the example runs in an empty folder.
    const script = `set -e\nshopt -s expand_aliases\ncd ${JSON.stringify(REPO_ROOT)}\n${alias}\ncd ${JSON.stringify(fixture.cwd)}\n${example}`;
    const proc = Bun.spawn(["bash", "-c", script], {
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    run = { code, stdout, stderr };
  });
  afterAll(() => fixture.cleanup());

  test("runs in a shell, from the alias to the last command, without an error or a warning", () => {
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  test("prints what the README says it prints", () => {
    const prose = section(README, "## A 30-second example");
    for (const said of ["Say hello to Ada in one friendly sentence.", "1 example: 1 passed, 0 failed"]) {
      expect(prose).toContain(`\`${said}\``);
      expect(run.stdout).toContain(`${said}\n`);
    }
    expect(run.stdout).toMatch(/^greet\s+prompt\s+project\s+100\s/m);
  });

  test("the skill it made is served to an MCP client started in that folder", async () => {
    const session = await connect(SOURCE_TARGET, join(fixture.cwd, "demo"), fixture.home);
    try {
      const prompt = await session.client.getPrompt({ name: "greet", arguments: { who: "Ada" } });
      expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Say hello to Ada in one friendly sentence." });
    } finally {
      await session.close();
    }
  });
});

describe("the README's example skill beside the built-in skills", () => {
  test("passes validate --strict with no finding at all: not too vague, competing with no built-in", async () => {
    const example = shBlock("## A 30-second example", "cat > .skills/greet.yaml");
    const skill = /cat > \.skills\/greet\.yaml <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(example)![1]!;
    const project = makeFixture({ ".skills/greet.yaml": `${skill}\n` });
    try {
      const result = await runCli(["validate", "--strict"], project.cwd, project.home);
      expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: "", code: 0 });
      expect(result.stderr).toMatch(/^no errors, 0 warnings in \d+ files; \d+ examples run, 0 failed\n$/);
    } finally {
      project.cleanup();
    }
  });
});

describe("skills and configs shown in the README and docs/skills.md", () => {
  const skillBlocks = [
    ...fencedBlocks(README).map((b) => ({ where: `README.md:${b.line}`, ...b })),
    ...fencedBlocks(readFileSync(join(REPO_ROOT, "docs", "skills.md"), "utf8")).map((b) => ({
      where: `docs/skills.md:${b.line}`,
      ...b,
    })),
  ].filter((b) => b.lang === "yaml" && /^id: /m.test(b.body));

  test("there are complete skills to check", () => {
    expect(skillBlocks.length).toBeGreaterThanOrEqual(2);
  });

  for (const block of skillBlocks) {
    test(`${block.where}: validates with --strict, and its examples pass`, async () => {
      const project = makeFixture({ ".skills/shown.yaml": block.body });
      try {
        const result = await runCli(["validate", "--strict", "--no-builtin"], project.cwd, project.home);
        expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: "", code: 0 });
        expect(result.stderr).toMatch(/^no errors, 0 warnings in 1 file; [1-9]\d* examples? run, 0 failed\n$/);
      } finally {
        project.cleanup();
      }
    });
  }

  const skillMdBlocks = [
    ...fencedBlocks(README).map((b) => ({ where: `README.md:${b.line}`, ...b })),
    ...fencedBlocks(readFileSync(join(REPO_ROOT, "docs", "agent-skills.md"), "utf8")).map((b) => ({
      where: `docs/agent-skills.md:${b.line}`,
      ...b,
    })),
  ].filter((b) => b.lang === "markdown" && /^---\nname: /.test(b.body));

  test("there are SKILL.md examples to check", () => {
    expect(skillMdBlocks.length).toBeGreaterThanOrEqual(2);
  });

  for (const block of skillMdBlocks) {
    test(`${block.where}: a SKILL.md that is served with no finding at all, and renders its body`, async () => {
      const name = /^name: ([a-z0-9-]+)/m.exec(block.body)![1]!;
      const project = makeFixture({ [`.skills/${name}/SKILL.md`]: block.body });
      try {
        const result = await runCli(["validate", "--no-builtin"], project.cwd, project.home);
        expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: "", code: 0 });
        const rendered = await runCli(["render", name, "--no-builtin"], project.cwd, project.home);
        expect(rendered.stdout).toBe(
          block.body
            .slice(block.body.indexOf("\n---\n", 4) + 5)
            .replaceAll("${CLAUDE_SKILL_DIR}", join(project.cwd, ".skills", name)),
        );
      } finally {
        project.cleanup();
      }
    });
  }

  test("the README's layers config reads without a finding about the config itself", async () => {
    const config = fencedBlocks(section(README, "## Layers and sharing")).find((b) => b.lang === "yaml")!.body;
    const project = makeFixture({ "skill-central.yaml": config, "skills/team/.keep": "", "~/my-skills/.keep": "" });
    try {
      const loaded = await loadSkills({ cwd: project.cwd, home: project.home });
      expect(loaded.diagnostics).toEqual([]);
      expect(loaded.config.layers.map((l) => [l.name, l.priority])).toEqual([
        ["builtin", 0],
        ["team", 50],
        ["personal", 80],
      ]);
    } finally {
      project.cleanup();
    }
  });
});
