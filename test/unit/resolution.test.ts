import { afterEach, describe, expect, test } from "bun:test";
import { buildRegistry, type Candidate, type LayerRef } from "../../src/registry/registry.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";

function layer(name: string, priority: number, order: number): LayerRef {
  return { name, priority, order };
}

function skill(id: string, extra: Partial<Skill> = {}): Skill {
  return {
    id,
    description: id,
    type: "prompt",
    tags: [],
    arguments: [],
    argumentsDeclared: true,
    exampleCount: 0,
    ...extra,
  };
}

function candidate(id: string, l: LayerRef, source = `${l.name}/${id}.yaml`, extra: Partial<Skill> = {}): Candidate {
  return {
    skill: skill(id, extra),
    layer: l,
    path: `/${source}`,
    source,
    content: { read: () => ({ template: id, examples: [] }) },
  };
}

describe("resolution by priority", () => {
  const low = layer("low", 10, 0);
  const high = layer("high", 50, 1);

  test("the highest priority wins, and the loser stays inspectable as shadowed", () => {
    const { registry, diagnostics } = buildRegistry([low, high], [candidate("a", high), candidate("a", low)]);
    expect(registry.get("a")?.layer.name).toBe("high");
    const chain = registry.resolution("a")!.chain;
    expect(chain.map((p) => [p.candidate.layer.name, p.status.kind])).toEqual([
      ["high", "effective"],
      ["low", "shadowed"],
    ]);
    const shadowed = chain[1]!.status;
    expect(shadowed.kind === "shadowed" && shadowed.by.layer.name).toBe("high");
    expect(diagnostics).toEqual([]);
  });

  test("priority beats declaration order: an earlier-declared higher layer still wins", () => {
    const early = layer("early", 90, 0);
    const late = layer("late", 10, 1);
    const { registry } = buildRegistry([early, late], [candidate("a", late), candidate("a", early)]);
    expect(registry.get("a")?.layer.name).toBe("early");
  });

  test("equal priority across layers: the later-declared layer wins, with a note", () => {
    const first = layer("user", 20, 1);
    const second = layer("project", 20, 2);
    const { registry, diagnostics } = buildRegistry([first, second], [candidate("a", second), candidate("a", first)]);
    expect(registry.get("a")?.layer.name).toBe("project");
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.severity).toBe("note");
    expect(diagnostics[0]!.message).toContain('"project" wins because it is declared later');
  });

  test("the result does not depend on the order candidates arrive in", () => {
    const a = layer("a", 20, 0);
    const b = layer("b", 20, 1);
    const c = layer("c", 5, 2);
    const all = [candidate("x", a), candidate("x", b), candidate("x", c)];
    const orders = [all, [...all].reverse(), [all[1]!, all[2]!, all[0]!]];
    const winners = orders.map((list) => buildRegistry([a, b, c], list).registry.get("x")?.layer.name);
    expect(winners).toEqual(["b", "b", "b"]);
    const chains = orders.map((list) =>
      buildRegistry([a, b, c], list)
        .registry.resolution("x")!
        .chain.map((p) => p.candidate.layer.name),
    );
    expect(new Set(chains.map((c) => c.join()))).toEqual(new Set(["b,a,c"]));
  });

  test("the same id twice in the winning layer is a conflict: not served at all, not even a lower copy", () => {
    const { registry, diagnostics } = buildRegistry(
      [low, high],
      [candidate("a", high, "high/one.yaml"), candidate("a", high, "high/two.yaml"), candidate("a", low)],
    );
    expect(registry.get("a")).toBeUndefined();
    expect(registry.ofType("prompt")).toEqual([]);
    const chain = registry.resolution("a")!.chain;
    expect(chain.map((p) => p.status.kind)).toEqual(["conflicted", "conflicted", "shadowed"]);
    const first = chain[0]!.status;
    expect(first.kind === "conflicted" && first.with.map((c) => c.source)).toEqual(["high/two.yaml"]);
    expect(diagnostics[0]!.message).toContain("high/one.yaml and high/two.yaml");
    expect(diagnostics[0]!.message).toContain("not served");
  });

  test("a conflict in a lower layer is reported but the higher layer's copy is served", () => {
    const { registry, diagnostics } = buildRegistry(
      [low, high],
      [candidate("a", low, "low/one.yaml"), candidate("a", low, "low/two.yaml"), candidate("a", high)],
    );
    expect(registry.get("a")?.layer.name).toBe("high");
    expect(diagnostics[0]!.severity).toBe("warning");
    expect(diagnostics[0]!.message).toContain("low/one.yaml and low/two.yaml");
  });
});

describe("indexes", () => {
  const l = layer("l", 1, 0);
  test("prompts and tools are listed by type, sorted by id", () => {
    const { registry } = buildRegistry(
      [l],
      [
        candidate("zeta", l),
        candidate("alpha", l),
        candidate("tool-b", l, undefined, { type: "tool", inputSchema: { type: "object" } }),
      ],
    );
    expect(registry.ofType("prompt").map((c) => c.skill.id)).toEqual(["alpha", "zeta"]);
    expect(registry.ofType("tool").map((c) => c.skill.id)).toEqual(["tool-b"]);
  });

  test("the tag index holds effective prompt skills only", () => {
    const other = layer("other", 9, 1);
    const { registry } = buildRegistry(
      [l, other],
      [
        candidate("p", l, undefined, { tags: ["kmp"] }),
        candidate("p", other, undefined, { tags: ["android"] }),
        candidate("t", l, undefined, { type: "tool", tags: ["kmp"], inputSchema: { type: "object" } }),
      ],
    );
    expect(registry.promptsTagged("kmp")).toEqual([]);
    expect(registry.promptsTagged("android").map((c) => c.layer.name)).toEqual(["other"]);
    expect(registry.tags()).toEqual(["android"]);
  });
});

describe("resolution through real layers", () => {
  let fixture: Fixture;
  afterEach(() => fixture?.cleanup());

  test("user and project layers at equal priority: the project's copy wins (declared later)", async () => {
    fixture = makeFixture({
      "~/.skill-central/config.yaml": "layers:\n  - { name: personal, path: ./skills, priority: 50 }\n",
      "~/.skill-central/skills/a.yaml": promptSkill("shared", { description: "from user" }),
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n",
      "team/a.yaml": promptSkill("shared", { description: "from project" }),
    });
    const { registry, diagnostics } = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(registry.get("shared")?.skill.description).toBe("from project");
    expect(diagnostics.map((d) => d.code)).toEqual(["priority-tie"]);
  });

  test("a project skill overrides a built-in one of the same id", async () => {
    fixture = makeFixture({ ".skills/review.yaml": promptSkill("review-pr", { description: "ours" }) });
    const { registry } = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(registry.get("review-pr")?.skill.description).toBe("ours");
    expect(registry.resolution("review-pr")!.chain.map((p) => `${p.candidate.layer.name}:${p.status.kind}`)).toEqual([
      "project:effective",
      "builtin:shadowed",
    ]);
  });
});
