import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SkillCentralError } from "../../src/errors.ts";
import { loadSkill, promptArguments } from "../../src/invoke/load-skill.ts";
import { loadSkillTool } from "../../src/mcp/catalog/catalog-tools.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import type { Registry } from "../../src/registry/registry.ts";
import { nearest } from "../../src/suggest.ts";
import { catalogFixtureFiles } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
let fixture: Fixture;
let registry: Registry;

beforeAll(async () => {
  fixture = makeFixture({
    ...catalogFixtureFiles(),
    "team/two-args.yaml":
      "id: two-args\ndescription: d\ntype: prompt\narguments:\n  - { name: file, required: true }\n  - { name: focus }\nprompt: 'Review {{file}} for {{focus}}'\n",
    "team/no-args.yaml": "id: no-args\ndescription: d\ntype: prompt\nprompt: 'Fixed text'\n",
    ".skills/pair/SKILL.md":
      "---\nname: pair\ndescription: Two named arguments\narguments: [file, focus]\n---\nLook at $file with $focus.\n",
  });
  writeFileSync(join(fixture.cwd, ".skills/incident-postmortem/logo.png"), PNG);
  registry = (await loadSkills({ cwd: fixture.cwd, home: fixture.home })).registry;
});
afterAll(() => fixture.cleanup());

function error(run: () => unknown): SkillCentralError {
  try {
    run();
  } catch (e) {
    if (e instanceof SkillCentralError) return e;
    throw e;
  }
  throw new Error("did not throw");
}

describe("load_skill: a prompt skill, rendered as prompts/get renders it", () => {
  test("an Agent Skill takes its free text as $ARGUMENTS, and lists its other files as skill:// URIs", () => {
    const loaded = loadSkill(registry, "incident-postmortem", "payments outage");
    expect(loaded.kind).toBe("prompt");
    if (loaded.kind !== "prompt") return;
    expect(loaded.text).toContain("Work on: payments outage");
    expect(loaded.uri).toBe("skill://incident-postmortem/SKILL.md");
    expect(loaded.files.map((f) => f.uri)).toEqual([
      "skill://incident-postmortem/logo.png",
      "skill://incident-postmortem/references/examples/payments-outage.md",
      "skill://incident-postmortem/references/template.md",
    ]);
  });

  test("a one-argument YAML prompt takes text as that argument; several named arguments take an object", () => {
    expect(loadSkill(registry, "review-pr", "the auth change")).toMatchObject({
      kind: "prompt",
      text: expect.stringContaining("Apply review-pr to the auth change."),
    });
    expect(loadSkill(registry, "two-args", { file: "a.ts", focus: "naming" })).toMatchObject({
      text: "Review a.ts for naming",
    });
    expect(loadSkill(registry, "two-args", { file: 42, focus: true })).toMatchObject({ text: "Review 42 for true" });
    // A client whose schema converter turned the object into text.
    expect(loadSkill(registry, "two-args", '{"file": "b.ts", "focus": "tests"}')).toMatchObject({
      text: "Review b.ts for tests",
    });
  });

  test("text for a prompt with several arguments: an Agent Skill splits it into words, a YAML prompt asks for an object", () => {
    expect(loadSkill(registry, "pair", 'src/a.ts "error handling"')).toMatchObject({
      text: "Look at src/a.ts with error handling.\n",
    });
    expect(error(() => loadSkill(registry, "two-args", "a.ts")).message).toBe(
      '"two-args" takes named arguments (file, focus): pass "arguments" as an object, e.g. {"file": "…"}',
    );
    expect(error(() => loadSkill(registry, "no-args", "something")).message).toBe('"no-args" takes no arguments');
    expect(loadSkill(registry, "no-args", "")).toMatchObject({ text: "Fixed text" });
  });

  test("a missing required argument is reported as prompts/get reports it", () => {
    expect(error(() => loadSkill(registry, "two-args", {})).message).toBe('Missing required argument: "file"');
  });

  test("arguments that are neither text nor an object are refused", () => {
    expect(error(() => promptArguments(registry.get("review-pr")!, [1, 2])).message).toBe(
      '"arguments" must be text or an object of named arguments',
    );
  });
});

describe("load_skill: a tool skill is described, not run", () => {
  test("its description and input schema", () => {
    expect(loadSkill(registry, "regex-builder")).toMatchObject({
      kind: "tool",
      uri: "skill://regex-builder/SKILL.md",
      description: "Build a regular expression from examples and explain each part.",
      inputSchema: { type: "object", required: ["input"] },
    });
  });
});

describe("load_skill with a path: one file the skill publishes, read as resources/read reads it", () => {
  const plan = { catalog: true, run: false, toolSkills: true, why: "" };
  const read = (name: string, path: string) =>
    loadSkillTool(registry, { name, path }, plan) as {
      content: { type: string; text?: string; resource?: { blob: string; mimeType: string } }[];
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    };

  test("by its path or its skill:// URI, as text when it is text", () => {
    for (const path of [
      "references/template.md",
      "./references/template.md",
      "skill://incident-postmortem/references/template.md",
    ]) {
      const result = read("incident-postmortem", path);
      expect(result.content).toEqual([{ type: "text", text: "# Postmortem template\n\n## Timeline\n\n## Impact\n" }]);
      expect(result.structuredContent).toMatchObject({
        path: "references/template.md",
        uri: "skill://incident-postmortem/references/template.md",
        mimeType: "text/markdown",
        size: 46,
      });
    }
  });

  test("bytes stay bytes", () => {
    const result = read("incident-postmortem", "logo.png");
    expect(result.content[0]!.type).toBe("resource");
    expect(result.content[0]!.resource!.mimeType).toBe("image/png");
    expect([...Buffer.from(result.content[0]!.resource!.blob, "base64")]).toEqual([...PNG]);
    expect(result.structuredContent!.text).toBeUndefined();
  });

  test("a YAML prompt's SKILL.md is the one the skills extension publishes for it", () => {
    const result = read("review-pr", "SKILL.md");
    expect(result.content[0]!.text).toStartWith('---\nname: "review-pr"\n');
  });

  test("a path the skill does not publish is never read, whatever it points at", () => {
    for (const path of [
      "../../team/review-pr.yaml",
      "/etc/passwd",
      "references",
      "skill://other/references/template.md",
    ]) {
      expect(read("incident-postmortem", path)).toEqual({
        content: [
          {
            type: "text",
            text: `No file "${path}" in skill "incident-postmortem"; its files: SKILL.md, logo.png, references/examples/payments-outage.md, references/template.md`,
          },
        ],
        isError: true,
      });
    }
    expect(read("review-pr", "x.md").content[0]!.text).toBe('No file "x.md" in skill "review-pr"; its files: SKILL.md');
    expect(read("regex-builder", "SKILL.md").content[0]!.text).toBe(
      '"regex-builder" is a tool skill: it has no files (load_skill without "path" shows its arguments)',
    );
  });

  test("a file changed since the load is refused, not served", () => {
    writeFileSync(join(fixture.cwd, ".skills/incident-postmortem/references/template.md"), "# Tampered\n");
    const result = read("incident-postmortem", "references/template.md");
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toStartWith(
      'Cannot read "references/template.md" of "incident-postmortem": skill://incident-postmortem/references/template.md changed on disk since it was published',
    );
  });
});

describe("unknown names", () => {
  test("name the three nearest skills a model may use", () => {
    expect(error(() => loadSkill(registry, "revew-pr")).message).toBe(
      'Unknown skill: "revew-pr". Nearest names: review-pr, review-ui, write-adr. find_skills searches them all.',
    );
  });

  test("a skill only people may run is unknown to load_skill, and never suggested", () => {
    const e = error(() => loadSkill(registry, "deploy"));
    expect(e.message).toStartWith('Unknown skill: "deploy".');
    expect(e.message).not.toContain("deploy,");
    expect(e.message).not.toMatch(/Nearest names:.*\bdeploy\b/);
  });

  test("nearest ranks by edits, a containing name counting as near, ties alphabetically, and cuts a huge input", () => {
    expect(nearest("review", ["pr-review-bot", "revie", "zzz", "abc"])).toEqual(["pr-review-bot", "revie", "abc"]);
    expect(nearest("x".repeat(1_000_000), ["a", "b"])).toEqual(["a", "b"]);
  });
});
