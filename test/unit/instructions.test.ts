import { describe, expect, test } from "bun:test";
import { clientView } from "../../src/board/client-view.ts";
import { DEFAULT_CATALOG_SETTINGS } from "../../src/config/catalog-settings.ts";
import { clientProfile } from "../../src/mcp/catalog/client-profiles.ts";
import {
  catalogInstructions,
  INSTRUCTIONS_BUDGET,
  instructionsFor,
  serverInstructions,
} from "../../src/mcp/instructions.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { buildRegistry, type Candidate, type LayerRef, type Registry } from "../../src/registry/registry.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { promptCandidate } from "../helpers/candidate.ts";

const BUILTIN: LayerRef = { name: "builtin", priority: 0, order: 0 };
const TEAM: LayerRef = { name: "team", priority: 50, order: 1 };

const candidate = (id: string, layer: LayerRef, fields: Partial<Skill> = {}): Candidate =>
  promptCandidate(
    id,
    layer,
    { description: `Does ${id} things. More detail follows here.`, ...fields },
    { template: "x" },
  );

function registryOf(candidates: Candidate[]): Registry {
  return buildRegistry([BUILTIN, TEAM], candidates).registry;
}

const windsurf = clientProfile({ name: "windsurf-client" }, undefined);
const claude = clientProfile({ name: "claude-code" }, undefined);
const plan = { catalog: true, run: false, toolSkills: true, why: "" };

describe("instructions for a client offered the catalog", () => {
  test("name the catalog tools, then the skills it can reach only through them: the team's before the built-in ones", () => {
    const registry = registryOf([
      candidate("zeta", TEAM),
      candidate("alpha", BUILTIN),
      candidate("beta", TEAM),
      candidate("a-tool", TEAM, { type: "tool" }),
    ]);
    const text = catalogInstructions(registry, plan, windsurf, { live: false });
    expect(text).toContain("call find_skills with a few words");
    expect(text).toContain("read a skill with load_skill");
    expect(text).not.toContain("run_skill_tool");
    expect(text).toContain(
      "Skills include: beta (Does beta things); zeta (Does zeta things); alpha (Does alpha things); a-tool (Does a-tool things).",
    );
  });

  test("mention run_skill_tool when tool skills are behind it, and list those among the first", () => {
    const registry = registryOf([candidate("p", TEAM), candidate("t", TEAM, { type: "tool" })]);
    const text = catalogInstructions(registry, { catalog: true, run: true, toolSkills: false, why: "" }, claude, {
      live: true,
    });
    expect(text).toContain("run through run_skill_tool");
    expect(text).toContain("Skills include: t (Does t things); p (Does p things).");
    expect(text).toEndWith("list_changed notifications are sent when they do.");
  });

  test("never name a skill only people may run", () => {
    const registry = registryOf([candidate("deploy", TEAM, { modelInvocable: false }), candidate("review", TEAM)]);
    expect(catalogInstructions(registry, plan, windsurf, { live: false })).not.toContain("deploy");
  });

  test(`stay within ${INSTRUCTIONS_BUDGET} characters (Claude Code cuts at 2,048) however many skills there are, and say how many more`, () => {
    const many = Array.from({ length: 1000 }, (_, i) =>
      candidate(`skill-${String(i).padStart(4, "0")}`, TEAM, { description: "A".repeat(300) }),
    );
    const text = catalogInstructions(registryOf(many), plan, windsurf, { live: true });
    expect(text.length).toBeLessThanOrEqual(INSTRUCTIONS_BUDGET);
    expect(text).toMatch(/and \d+ more \(find_skills lists them all\)/);
  });

  test("built once per snapshot and plan", () => {
    const registry = registryOf([candidate("one", TEAM)]);
    expect(catalogInstructions(registry, plan, windsurf, { live: false })).toBe(
      catalogInstructions(registry, plan, windsurf, { live: false }),
    );
  });
});

describe("which instructions a client gets", () => {
  test("a tool-only client waits for the first load and gets the catalog version", async () => {
    const source = new LiveRegistry();
    const asked = instructionsFor(source, windsurf, { live: false });
    setTimeout(() => source.swap(registryOf([candidate("alpha", TEAM)]), undefined, DEFAULT_CATALOG_SETTINGS), 20);
    expect(await asked).toContain("Skills include: alpha");
  });

  test("a capped client that shows prompts (cursor-vscode) waits too: over its cap, its instructions are the catalog's", async () => {
    const cursor = clientProfile({ name: "cursor-vscode" }, undefined);
    const tools = ["a", "b", "c"].map((id) =>
      candidate(`tool-${id}`, TEAM, { type: "tool", inputSchema: { type: "object", properties: {} } }),
    );
    const source = new LiveRegistry();
    const asked = instructionsFor(source, cursor, { live: false });
    source.swap(registryOf(tools), undefined, { ...DEFAULT_CATALOG_SETTINGS, toolCap: 2 });
    const text = await asked;
    expect(text).toContain("find_skills");
    expect(text).toContain("run_skill_tool");
  });

  test("a client that shows prompts is answered at once, before the first load, with the usual instructions", async () => {
    const source = new LiveRegistry();
    // "At once": before the event loop's next turn, so waiting on any timer or on the load would lose the race.
    const nextTurn = new Promise<string>((resolve) => setImmediate(() => resolve("waited")));
    expect(await Promise.race([instructionsFor(source, claude, { live: false }), nextTurn])).toBe(
      serverInstructions({ live: false }),
    );
  });

  test("once loaded, a prompt client whose plan has the catalog (catalog: on) gets the catalog version", async () => {
    const source = new LiveRegistry();
    source.swap(registryOf([candidate("alpha", TEAM)]), undefined, { ...DEFAULT_CATALOG_SETTINGS, mode: "on" });
    expect(await instructionsFor(source, claude, { live: false })).toContain("find_skills");
    source.swap(registryOf([candidate("alpha", TEAM)]), undefined, { ...DEFAULT_CATALOG_SETTINGS, mode: "off" });
    expect(await instructionsFor(source, windsurf, { live: false })).toBe(serverInstructions({ live: false }));
  });

  test("a first load that fails leaves the usual instructions", async () => {
    const source = new LiveRegistry();
    source.fail(new Error("broken"));
    expect(await instructionsFor(source, windsurf, { live: false })).toBe(serverInstructions({ live: false }));
  });
});

describe("the board's client view shows what initialize gives", () => {
  test("a capped client: one version, the one its initialize waits for", async () => {
    const source = new LiveRegistry();
    const tools = ["a", "b", "c"].map((id) =>
      candidate(`tool-${id}`, TEAM, { type: "tool", inputSchema: { type: "object", properties: {} } }),
    );
    const registry = registryOf(tools);
    source.swap(registry, undefined, { ...DEFAULT_CATALOG_SETTINGS, toolCap: 2 });
    const view = await clientView(source, registry, { label: "Cursor", name: "cursor-vscode" }, false);
    expect(view.instructions).toContain("run_skill_tool");
    expect(view.instructionsBeforeLoad).toBeUndefined();
  });

  test("a client answered at once whose plan has the catalog (catalog: on): both versions, the usual one before the load", async () => {
    const source = new LiveRegistry();
    const registry = registryOf([candidate("alpha", TEAM)]);
    source.swap(registry, undefined, { ...DEFAULT_CATALOG_SETTINGS, mode: "on" });
    const view = await clientView(source, registry, { label: "Claude Code", name: "claude-code" }, false);
    expect(view.instructions).toContain("find_skills");
    expect(view.instructionsBeforeLoad).toBe(serverInstructions({ live: false }));
    source.swap(registry, undefined, DEFAULT_CATALOG_SETTINGS);
    const plain = await clientView(source, registry, { label: "Claude Code", name: "claude-code" }, false);
    expect(plain.instructionsBeforeLoad).toBeUndefined();
  });
});

describe("the usual instructions", () => {
  test("name prompts, tools, compose, the JSON views and the skills extension, within the budget", () => {
    const text = serverInstructions({ live: true });
    for (const part of [
      "prompts/list",
      "tools/call",
      "skills:compose",
      "skill-central://registry",
      "skills/list",
      "list_changed",
    ])
      expect(text).toContain(part);
    expect(text.length).toBeLessThanOrEqual(INSTRUCTIONS_BUDGET);
  });
});
