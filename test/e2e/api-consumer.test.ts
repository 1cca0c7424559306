import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openSkills, SkillCentralError, type Skills } from "../../src/api.ts";
import { GREETING } from "../helpers/consumer-project.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

describe("openSkills, in process", () => {
  let fixture: Fixture;
  let skills: Skills;
  beforeAll(async () => {
    fixture = makeFixture({
      "skill-central.yaml":
        "layers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n",
      ".skills/greeting.yaml": GREETING,
      "team/greeting.yaml": "id: greeting\ndescription: Team greeting\ntype: prompt\ntags: [hello]\nprompt: Hey\n",
      "team/wave.yaml":
        "id: wave\ndescription: Waves\ntype: prompt\ntags: [hello, hand]\nprompt: 'Wave{{#if who}} at {{who}}{{/if}}'\nexamples:\n  - { contains: [Wave at] }\n",
      "team/broken.yaml": "id: broken\ndescription: [\n",
    });
    skills = await openSkills({ cwd: fixture.cwd, home: fixture.home });
  });
  afterAll(() => fixture.cleanup());

  test("loads as the server does: built-in skills, layers, resolution, diagnostics", () => {
    expect(skills.list({ type: "tool" }).map((s) => s.id)).toContain("commit-conventions");
    expect(skills.list({ layer: "team" }).map((s) => s.id)).toEqual(["wave"]);
    expect(skills.list({ tag: "HELLO" }).map((s) => s.id)).toEqual(["greeting", "wave"]);
    expect(skills.diagnostics.map((d) => [d.file, d.severity])).toEqual([["team/broken.yaml", "error"]]);
  });

  test("get gives a served skill with its provenance chain; an unknown id gives undefined", () => {
    const greeting = skills.get("greeting")!;
    expect(greeting).toMatchObject({
      id: "greeting",
      layer: "project",
      priority: 100,
      source: ".skills/greeting.yaml",
    });
    expect(greeting.chain).toEqual([
      { layer: "project", priority: 100, source: ".skills/greeting.yaml", status: "effective" },
      {
        layer: "team",
        priority: 50,
        source: "team/greeting.yaml",
        status: "shadowed",
        shadowedBy: ".skills/greeting.yaml",
      },
    ]);
    expect(skills.get("nope")).toBeUndefined();
    expect(skills.resolution("greeting")?.served).toBe(true);
  });

  test("renderPrompt, callTool and compose return the server's text", async () => {
    expect(await skills.renderPrompt("greeting", { who: "Ada" })).toBe("Hello, Ada!");
    expect(await skills.callTool("commit-conventions", { type: "fix", summary: "x" })).toBe("fix: x");
    expect(await skills.compose(["hand"], { who: "Bo" })).toBe("## wave\nWave at Bo");
    expect(await skills.renderPrompt("skills:compose", { tags: "hand" })).toBe("## wave\nWave");
  });

  test("invalid tool arguments throw a SkillCentralError carrying every problem", async () => {
    const error = await skills.callTool("commit-conventions", { type: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillCentralError);
    expect(error).toMatchObject({
      code: "invalid-arguments",
      problems: [
        'Missing required argument: "summary"',
        'Argument "type" must be one of: feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert',
      ],
    });
    await expect(skills.renderPrompt("greeting")).rejects.toMatchObject({
      code: "missing-argument",
      message: 'Missing required argument: "who"',
    });
    await expect(skills.callTool("greeting")).rejects.toMatchObject({ code: "unknown-tool" });
    await expect(skills.compose("nothing-has-this")).rejects.toMatchObject({ code: "no-skills-for-tags" });
  });

  test("runExamples runs the served skills' inline examples, or the ids asked for", async () => {
    // The built-in skills' own examples run too, and pass.
    const everything = await skills.runExamples();
    expect(everything.filter((r) => r.source.startsWith("builtin:") && !r.pass)).toEqual([]);
    const all = everything.filter((r) => !r.source.startsWith("builtin:"));
    expect(all.map((r) => [r.id, r.pass])).toEqual([
      ["greeting", true],
      ["wave", false],
    ]);
    expect(all[1]).toMatchObject({
      failure: "text-missing",
      missing: ["Wave at"],
      actual: "Wave",
      source: "team/wave.yaml",
      position: { line: 7, column: 5 },
    });
    expect((await skills.runExamples(["greeting"])).map((r) => r.id)).toEqual(["greeting"]);
    await expect(skills.runExamples(["nope"])).rejects.toThrow("Unknown skill: nope");
    await expect(skills.runExamples(["nope"])).rejects.toMatchObject({ code: "unknown-skill" });
  });
});

// The published package in a consumer project's `bun test` (bun add -d from a registry) is
// test/e2e/npm-registry.test.ts.
