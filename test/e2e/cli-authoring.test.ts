import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({});
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli([...args, "--no-builtin"], fixture.cwd, fixture.home);

// One project walked through the README's "Writing skills" steps, in order.
describe("init → new → render → test → validate", () => {
  test("init scaffolds a config, two layers and an example prompt and tool", async () => {
    const { code, stdout } = await cli("init");
    expect(code).toBe(0);
    expect(stdout).toStartWith(
      "created     skill-central.yaml\ncreated     .skills/team/explain-change.yaml\ncreated     .skills/project/branch-name.yaml\n",
    );
    for (const file of ["skill-central.yaml", ".skills/team/explain-change.yaml", ".skills/project/branch-name.yaml"])
      expect(existsSync(join(fixture.cwd, file))).toBe(true);
  });

  test("init never overwrites, and says what it left alone", async () => {
    const edited = join(fixture.cwd, ".skills/project/branch-name.yaml");
    const original = readFileSync(edited, "utf8");
    writeFileSync(edited, `${original}# my edit\n`);
    const { code, stdout } = await cli("init");
    expect(code).toBe(0);
    expect(stdout).toContain("left alone  skill-central.yaml (already exists)\n");
    expect(stdout).toContain("left alone  .skills/project/branch-name.yaml (already exists)\n");
    expect(stdout).not.toContain("created");
    expect(readFileSync(edited, "utf8")).toBe(`${original}# my edit\n`);
  });

  test("the scaffold's own examples pass, and it validates clean", async () => {
    const [tested, validated, listed] = await Promise.all([cli("test"), cli("validate"), cli("list")]);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toEndWith("5 examples: 5 passed, 0 failed\n");
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe("");
    expect(listed.stdout).toMatch(/branch-name\s+tool\s+project\s+100/);
    expect(listed.stdout).toMatch(/explain-change\s+prompt\s+team\s+50/);
  });

  test("new writes a commented skill into the highest-priority layer, or the one named", async () => {
    const [prompt, tool] = await Promise.all([
      cli("new", "api-review", "--type", "prompt"),
      cli("new", "ticket-link", "--type", "tool", "--layer", "team"),
    ]);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toStartWith(
      'created .skills/project/api-review.yaml (prompt, layer "project", priority 100)\n',
    );
    expect(tool.code).toBe(0);
    expect(tool.stdout).toStartWith('created .skills/team/ticket-link.yaml (tool, layer "team", priority 50)\n');
    const text = readFileSync(join(fixture.cwd, ".skills/project/api-review.yaml"), "utf8");
    expect(text).toContain("id: api-review\n");
    expect(text).toContain("# Inline examples");
  });

  test("a new skill renders, passes its own examples and validates as written", async () => {
    const [rendered, tested, validated] = await Promise.all([
      cli("render", "api-review", "--arg", "context=a slow endpoint"),
      cli("test", "api-review", "ticket-link"),
      cli("validate", ".skills/project/api-review.yaml", ".skills/team/ticket-link.yaml"),
    ]);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toBe("Replace this line with your instructions.\n\nContext: a slow endpoint\n");
    expect(tested.code).toBe(0);
    expect(tested.stdout).toEndWith("4 examples: 4 passed, 0 failed\n");
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe("");
  });

  test("new never overwrites a file without --force, and names the file it would replace", async () => {
    const before = readFileSync(join(fixture.cwd, ".skills/project/api-review.yaml"), "utf8");
    const { code, stderr } = await cli("new", "api-review", "--type", "tool");
    expect(code).toBe(1);
    expect(stderr).toBe(
      "error: .skills/project/api-review.yaml already exists — pass --force to replace it (the current one is then kept as .skills/project/api-review.yaml.bak)\n",
    );
    expect(readFileSync(join(fixture.cwd, ".skills/project/api-review.yaml"), "utf8")).toBe(before);
  });

  test("new --force replaces the file, says so, and keeps every earlier version as a numbered .bak", async () => {
    const file = join(fixture.cwd, ".skills/project/api-review.yaml");
    const first = `${readFileSync(file, "utf8")}# my own edit\n`;
    writeFileSync(file, first);
    const replaced = await cli("new", "api-review", "--type", "tool", "--force");
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toStartWith(
      'replaced .skills/project/api-review.yaml (tool, layer "project", priority 100)\nthe previous file is kept as .skills/project/api-review.yaml.bak\n',
    );
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(first);
    expect(readFileSync(file, "utf8")).toContain("type: tool\n");

    // A second --force never overwrites the first backup.
    const second = readFileSync(file, "utf8");
    const again = await runCliJson<{ created: boolean; replaced: boolean; backup: string }>(
      ["new", "api-review", "--type", "prompt", "--force", "--no-builtin"],
      fixture.cwd,
      fixture.home,
    );
    expect(again.json).toMatchObject({
      created: true,
      replaced: true,
      backup: ".skills/project/api-review.yaml.2.bak",
    });
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(first);
    expect(readFileSync(`${file}.2.bak`, "utf8")).toBe(second);
    // Backups are not skill files: the id is still served once, from the new file.
    const listed = await cli("list");
    expect(listed.stdout.match(/^api-review\s/gm)).toHaveLength(1);
    expect(listed.stdout).toMatch(/api-review\s+prompt\s+project\s+100/);
  });

  test("new refuses an id a lower layer defines unless --force, which overrides it and says so", async () => {
    const refused = await cli("new", "explain-change", "--type", "prompt");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: id "explain-change" is already defined by .skills/team/explain-change.yaml (layer "team", priority 50) — pass --force to write .skills/project/explain-change.yaml, which would override it\n',
    );
    expect(existsSync(join(fixture.cwd, ".skills/project/explain-change.yaml"))).toBe(false);
    const forced = await cli("new", "explain-change", "--type", "prompt", "--force");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(
      'created .skills/project/explain-change.yaml (prompt, layer "project", priority 100)\nnote: it overrides .skills/team/explain-change.yaml (layer "team", priority 50)\n',
    );
    expect(existsSync(join(fixture.cwd, ".skills/project/explain-change.yaml.bak"))).toBe(false);
  });

  test("new refuses, even with --force, a file a higher layer's skill would shadow, naming that file", async () => {
    for (const force of [[], ["--force"]]) {
      const { code, stderr } = await cli("new", "branch-name", "--type", "tool", "--layer", "team", ...force);
      expect(code).toBe(1);
      expect(stderr).toBe(
        'error: id "branch-name" is defined by .skills/project/branch-name.yaml (layer "project", priority 100), which would shadow .skills/team/branch-name.yaml (layer "team", priority 50), so the new file would never be served — edit that file, or write into its layer with --layer project\n',
      );
    }
    expect(existsSync(join(fixture.cwd, ".skills/team/branch-name.yaml"))).toBe(false);
  });

  test("new refuses, even with --force, an id another file of the same layer defines (they would conflict)", async () => {
    writeFileSync(
      join(fixture.cwd, ".skills/project/named-otherwise.yaml"),
      "id: taken\ndescription: d\ntype: prompt\nprompt: x\n",
    );
    const { code, stderr } = await cli("new", "taken", "--type", "prompt", "--force");
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error: id "taken" is already defined in layer "project" by .skills/project/named-otherwise.yaml; a second file would conflict with it — edit that file instead\n',
    );
    expect(existsSync(join(fixture.cwd, ".skills/project/taken.yaml"))).toBe(false);
  });

  test("bad input to new is a usage error", async () => {
    const [badId, noType, badLayer, builtin] = await Promise.all([
      cli("new", "Bad_Id", "--type", "prompt"),
      cli("new", "fine-id"),
      cli("new", "fine-id", "--type", "prompt", "--layer", "tema"),
      runCli(["new", "fine-id", "--type", "prompt", "--layer", "builtin"], fixture.cwd, fixture.home),
    ]);
    expect([badId.code, noType.code, badLayer.code, builtin.code]).toEqual([2, 2, 2, 2]);
    expect(badId.stderr).toStartWith('skill-central new: error: "Bad_Id" is not a valid id');
    expect(noType.stderr).toBe(
      "skill-central new: error: --type is required: --type prompt or --type tool (or --format skill-md for an Agent Skills folder)\n",
    );
    expect(badLayer.stderr).toContain('no layer named "tema" (did you mean "team"?)');
    expect(builtin.stderr).toContain("the built-in layer ships with skill-central");
  });
});

describe("new --format skill-md", () => {
  let project: Fixture;
  beforeAll(() => {
    project = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n",
      "team/old.yaml":
        "id: release-notes\ndescription: Write the release notes for a tagged version\ntype: prompt\nprompt: p\n",
    });
  });
  afterAll(() => project.cleanup());
  const run = (...args: string[]) => runCli(args, project.cwd, project.home);

  test("writes a folder with SKILL.md and examples.yaml that validates strictly, renders, and passes its examples", async () => {
    const created = await run("new", "draft-reply", "--format", "skill-md");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(
      'created team/draft-reply/SKILL.md (Agent Skills folder, layer "team", priority 50)\ncreated team/draft-reply/examples.yaml\nNext: edit it, then skill-central render draft-reply and skill-central test draft-reply\n',
    );
    const [validated, tested, rendered, strict] = await Promise.all([
      run("validate"),
      run("test", "draft-reply"),
      run("render", "draft-reply", "--arg", "arguments=the outage email"),
      run("validate", "--strict"),
    ]);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe("");
    expect(tested.stdout).toEndWith("2 examples: 2 passed, 0 failed\n");
    expect(rendered.stdout).toEndWith("Work on: the outage email\n");
    // Only the specification's fields: every host loads it, and a CI running --strict passes.
    expect({ code: strict.code, stdout: strict.stdout }).toEqual({ code: 0, stdout: "" });
  });

  test("--force keeps the old SKILL.md as a hidden backup (never published as a file of the skill) and leaves examples.yaml alone", async () => {
    const examples = join(project.cwd, "team/draft-reply/examples.yaml");
    writeFileSync(examples, "- contains: [Work on]\n");
    const refused = await run("new", "draft-reply", "--format", "skill-md");
    expect(refused.stderr).toBe(
      "error: team/draft-reply/SKILL.md already exists — pass --force to replace it (the current one is then kept as team/draft-reply/.SKILL.md.bak)\n",
    );
    const forced = await run("new", "draft-reply", "--format", "skill-md", "--force");
    expect(forced.stdout).toContain("the previous file is kept as team/draft-reply/.SKILL.md.bak\n");
    expect(readFileSync(examples, "utf8")).toBe("- contains: [Work on]\n");
    const shown = await runCliJson<{ skill: { files: { path: string }[]; examplesFile?: string; leftOut?: string[] } }>(
      ["show", "draft-reply"],
      project.cwd,
      project.home,
    );
    expect(shown.json.skill.files.map((f) => f.path)).toEqual(["SKILL.md"]);
    expect(shown.json.skill.examplesFile).toBe("examples.yaml");
    expect(shown.json.skill.leftOut).toEqual([".SKILL.md.bak"]);
  });

  test("an id a YAML file of the same layer defines is refused; a tool is refused; a wrong format is a usage error", async () => {
    const same = await run("new", "release-notes", "--format", "skill-md", "--force");
    expect(same.stderr).toBe(
      'error: id "release-notes" is already defined in layer "team" by team/old.yaml; a second file would conflict with it — edit that file instead\n',
    );
    const tool = await run("new", "x", "--format", "skill-md", "--type", "tool");
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain("an Agent Skills folder (SKILL.md) is always a prompt");
    const format = await run("new", "x", "--format", "skillmd");
    expect(format.stderr).toBe(
      'skill-central new: error: --format must be "yaml" or "skill-md", not "skillmd" (did you mean "skill-md"?)\n',
    );
  });
});

test("new without any configured layer writes into .skills/, the folder the server falls back to", async () => {
  const bare = makeFixture({});
  try {
    const made = await runCli(["new", "first-skill", "--type", "prompt", "--no-builtin"], bare.cwd, bare.home);
    expect(made.code).toBe(0);
    expect(made.stdout).toStartWith('created .skills/first-skill.yaml (prompt, layer "project", priority 100)\n');
    const listed = await runCli(["list", "--no-builtin"], bare.cwd, bare.home);
    expect(listed.stdout).toMatch(/first-skill\s+prompt\s+project\s+100/);
  } finally {
    bare.cleanup();
  }
});

test("new never writes into a url layer's read-only copy, named or not", async () => {
  const project = makeFixture({
    "skill-central.yaml":
      "builtin: false\nlayers:\n  - { name: vendor, priority: 50, url: https://example.invalid/skills/ }\n",
  });
  try {
    const refusals: [layer: string[], refusal: string][] = [
      [["--layer", "vendor"], 'layer "vendor" is a read-only copy of a well-known index'],
      [[], "every layer comes from git or a well-known index"],
    ];
    for (const [layer, refusal] of refusals) {
      const made = await runCli(["new", "idea", "--type", "prompt", ...layer], project.cwd, project.home);
      expect({ code: made.code, refused: made.stderr.includes(refusal) }).toEqual({ code: 2, refused: true });
    }
    // Before, an unsynced url layer's folder was "" and the skill landed in the project's root.
    expect(existsSync(join(project.cwd, "idea.yaml"))).toBe(false);
  } finally {
    project.cleanup();
  }
});

test("the reported case: new --force on an id the project already overrides names the project's file, not only the built-in one, and keeps it as .bak", async () => {
  const own = "id: commit-conventions\ndescription: Our own commit format\ntype: tool\nprompt: ours\n";
  const project = makeFixture({ ".skills/commit-conventions.yaml": own });
  try {
    const refused = await runCli(["new", "commit-conventions", "--type", "tool"], project.cwd, project.home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: .skills/commit-conventions.yaml already exists; id "commit-conventions" is already defined by builtin:commit-conventions.yaml (layer "builtin", priority 0) — pass --force to replace it (the current one is then kept as .skills/commit-conventions.yaml.bak)\n',
    );
    const forced = await runCli(["new", "commit-conventions", "--type", "tool", "--force"], project.cwd, project.home);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toStartWith(
      'replaced .skills/commit-conventions.yaml (tool, layer "project", priority 100)\nthe previous file is kept as .skills/commit-conventions.yaml.bak\nnote: it overrides builtin:commit-conventions.yaml (layer "builtin", priority 0)\n',
    );
    expect(readFileSync(join(project.cwd, ".skills/commit-conventions.yaml.bak"), "utf8")).toBe(own);
  } finally {
    project.cleanup();
  }
});
