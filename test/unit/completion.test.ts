import { describe, expect, test } from "bun:test";
import {
  completeEnum,
  completePromptArgument,
  completeResourceArgument,
  completeTags,
  MAX_COMPLETION_VALUES,
  withPrefix,
} from "../../src/mcp/completion.ts";
import { buildRegistry, type Candidate, type LayerRef } from "../../src/registry/registry.ts";
import type { Skill } from "../../src/skill/skill.ts";

const layer: LayerRef = { name: "team", priority: 10, order: 0 };
function skill(id: string, extra: Partial<Skill> = {}): Candidate {
  return {
    skill: {
      id,
      description: id,
      type: "prompt",
      tags: [],
      arguments: [],
      argumentsDeclared: false,
      exampleCount: 0,
      ...extra,
    },
    layer,
    path: `/${id}.yaml`,
    source: `${id}.yaml`,
    content: { read: () => ({ template: id, examples: [] }) },
  };
}

describe("tag completion for skills:compose", () => {
  const tags = ["android", "api", "architecture", "kmp"];

  test("completes the segment after the last comma, keeping what was typed before it", () => {
    expect(completeTags(tags, "kmp, a")).toEqual(["kmp, android", "kmp, api", "kmp, architecture"]);
    expect(completeTags(tags, "kmp,an")).toEqual(["kmp,android"]);
    expect(completeTags(tags, "AR")).toEqual(["architecture"]);
  });

  test("an empty segment offers every tag not already chosen", () => {
    expect(completeTags(tags, "api, kmp, ")).toEqual(["api, kmp, android", "api, kmp, architecture"]);
    expect(completeTags(tags, "")).toEqual(tags);
  });
});

describe("prefix matching", () => {
  test("withPrefix returns the contiguous run of a sorted list", () => {
    expect(withPrefix(["a", "ab", "abc", "b", "ba"], "ab")).toEqual(["ab", "abc"]);
    expect(withPrefix(["a", "b"], "c")).toEqual([]);
  });

  test("enum values match by prefix in any case, in declared order", () => {
    expect(completeEnum(["Beginner", "expert", "exec"], "ex")).toEqual(["expert", "exec"]);
    expect(completeEnum(["Beginner", "expert"], "BEG")).toEqual(["Beginner"]);
  });
});

describe("completion against a registry", () => {
  const many = Array.from({ length: 120 }, (_, i) => `v${String(i).padStart(3, "0")}`);
  const { registry } = buildRegistry(
    [layer],
    [
      skill("pick", {
        arguments: [
          { name: "level", required: false, enum: ["low", "lower", "high"] },
          { name: "free", required: false },
        ],
      }),
      skill("wide", { arguments: [{ name: "x", required: false, enum: many }] }),
      {
        ...skill("shown", {
          arguments: [
            { name: "lang", required: true },
            { name: "other", required: false },
          ],
        }),
        content: {
          read: () => ({
            template: "t",
            examples: [
              { arguments: { lang: "kotlin" } },
              { arguments: { lang: "swift", other: 3 } },
              { arguments: { lang: "kotlin" } },
            ],
          }),
        },
      },
      skill("tagged", { tags: ["kmp", "android"] }),
      skill("tool-one", { type: "tool" }),
    ],
  );

  test("a prompt's enum argument; an argument without enum completes to nothing", () => {
    expect(completePromptArgument(registry, "pick", "level", "lo").completion).toEqual({
      values: ["low", "lower"],
      total: 2,
      hasMore: false,
    });
    expect(completePromptArgument(registry, "pick", "free", "x").completion.values).toEqual([]);
  });

  test("an argument without enum completes to the values its examples give it, by prefix, without repeats", () => {
    expect(completePromptArgument(registry, "shown", "lang", "").completion.values).toEqual(["kotlin", "swift"]);
    expect(completePromptArgument(registry, "shown", "lang", "S").completion.values).toEqual(["swift"]);
    expect(completePromptArgument(registry, "shown", "other", "").completion.values).toEqual([]);
  });

  test("at most 100 values, with the total and hasMore", () => {
    expect(completePromptArgument(registry, "wide", "x", "v").completion).toEqual({
      values: many.slice(0, MAX_COMPLETION_VALUES),
      total: 120,
      hasMore: true,
    });
  });

  test("skills:compose tags come from the registry's tags", () => {
    expect(completePromptArgument(registry, "skills:compose", "tags", "k").completion.values).toEqual(["kmp"]);
  });

  test("an unknown prompt (or a tool) is the unknown-prompt error", () => {
    expect(() => completePromptArgument(registry, "nope", "x", "")).toThrow("Unknown prompt skill: nope");
    expect(() => completePromptArgument(registry, "tool-one", "x", "")).toThrow("Unknown prompt skill: tool-one");
  });

  test("the skill resource template completes served ids; another template is an error", () => {
    expect(completeResourceArgument(registry, "skill-central://skills/{id}", "id", "t").completion.values).toEqual([
      "tagged",
      "tool-one",
    ]);
    expect(() => completeResourceArgument(registry, "skill-central://other/{x}", "x", "")).toThrow(
      "Unknown resource template: skill-central://other/{x}",
    );
  });

  test("skill://{name}/SKILL.md completes published skills only: prompts, not tools", () => {
    expect(completeResourceArgument(registry, "skill://{name}/SKILL.md", "name", "t").completion.values).toEqual([
      "tagged",
    ]);
    expect(completeResourceArgument(registry, "skill://{name}/SKILL.md", "other", "t").completion.values).toEqual([]);
  });
});
