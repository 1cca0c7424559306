import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli } from "./cli-run.ts";

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
    expect(stdout).toStartWith("created     skill-central.yaml\ncreated     .skills/team/explain-change.yaml\ncreated     .skills/project/branch-name.yaml\n");
    for (const file of ["skill-central.yaml", ".skills/team/explain-change.yaml", ".skills/project/branch-name.yaml"]) expect(existsSync(join(fixture.cwd, file))).toBe(true);
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
    const [prompt, tool] = await Promise.all([cli("new", "api-review", "--type", "prompt"), cli("new", "ticket-link", "--type", "tool", "--layer", "team")]);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toStartWith('created .skills/project/api-review.yaml (prompt, layer "project", priority 100)\n');
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

  test("new refuses an existing id or file unless --force", async () => {
    const [elsewhere, sameFile] = await Promise.all([cli("new", "branch-name", "--type", "tool", "--layer", "team"), cli("new", "api-review", "--type", "tool")]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toBe(
      'error: id "branch-name" already exists: .skills/project/branch-name.yaml (layer "project", priority 100); pass --force to write .skills/team/branch-name.yaml anyway\n',
    );
    expect(existsSync(join(fixture.cwd, ".skills/team/branch-name.yaml"))).toBe(false);
    expect(sameFile.code).toBe(1);
    expect(sameFile.stderr).toBe("error: .skills/project/api-review.yaml already exists; pass --force to overwrite it\n");

    const [forcedElsewhere, forcedSameFile] = await Promise.all([
      cli("new", "branch-name", "--type", "tool", "--layer", "team", "--force"),
      cli("new", "api-review", "--type", "tool", "--force"),
    ]);
    expect(forcedElsewhere.code).toBe(0);
    expect(forcedElsewhere.stdout).toContain('note: .skills/project/branch-name.yaml (layer "project") has a higher priority and still wins');
    expect(forcedSameFile.code).toBe(0);
    expect(readFileSync(join(fixture.cwd, ".skills/project/api-review.yaml"), "utf8")).toContain("type: tool\n");
  });

  test("new refuses, even with --force, an id another file of the same layer defines (they would conflict)", async () => {
    writeFileSync(join(fixture.cwd, ".skills/project/named-otherwise.yaml"), "id: taken\ndescription: d\ntype: prompt\nprompt: x\n");
    const { code, stderr } = await cli("new", "taken", "--type", "prompt", "--force");
    expect(code).toBe(1);
    expect(stderr).toBe('error: id "taken" is already defined in layer "project" by .skills/project/named-otherwise.yaml; a second file would conflict with it (edit that file instead)\n');
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
    expect(noType.stderr).toBe("skill-central new: error: --type is required: --type prompt or --type tool\n");
    expect(badLayer.stderr).toContain('no layer named "tema" (did you mean "team"?)');
    expect(builtin.stderr).toContain("the built-in layer ships with skill-central");
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
