import { describe, expect, test } from "bun:test";
import {
  DEFAULT_CATALOG_SETTINGS,
  mergeCatalogSettings,
  type CatalogSettings,
} from "../../src/config/catalog-settings.ts";
import { CLIENT_TOOL_PREFIX, fitsAsToolName, planTools, type ToolSkillCounts } from "../../src/mcp/catalog/mode.ts";
import { clientProfile, knownClients, type ClientProfile } from "../../src/mcp/catalog/client-profiles.ts";

const client = (name: string, capabilities?: Record<string, unknown>): ClientProfile =>
  clientProfile({ name }, capabilities);
const settings = (over: Partial<CatalogSettings> = {}): CatalogSettings => ({ ...DEFAULT_CATALOG_SETTINGS, ...over });
const counts = (fitting: number, unfitting = 0): ToolSkillCounts => ({ fitting, unfitting });
const shape = (plan: { catalog: boolean; run: boolean; toolSkills: boolean }) => ({
  catalog: plan.catalog,
  run: plan.run,
  toolSkills: plan.toolSkills,
});

describe("client profiles, by clientInfo.name as each client sends it", () => {
  test.each([
    ["claude-code", "shown", false],
    ["claude-ai", "shown", false],
    ["cursor-vscode", "shown", true],
    ["Visual Studio Code", "shown", true],
    ["windsurf-client", "not-shown", true],
    ["codex-mcp-client", "not-shown", false],
    ["Cline", "not-shown", false],
    ["Zed", "shown", false],
    ["gemini-cli-mcp-client", "shown", false],
  ] as const)("%p: prompts %p, capped %p", (name, prompts, capped) => {
    expect(client(name)).toEqual({ name, prompts, capped, basis: "known-client" });
  });

  test("names match whatever their case", () => {
    expect(client("WINDSURF-CLIENT").prompts).toBe("not-shown");
    expect(client("zed").prompts).toBe("shown");
  });

  test("an unknown client that lists the primitives it uses, without prompts, takes tools only and is treated as capped", () => {
    expect(client("new-agent", { tools: {}, resources: {} })).toEqual({
      name: "new-agent",
      prompts: "not-shown",
      capped: true,
      basis: "declared",
    });
    expect(client("new-ide", { prompts: {}, tools: {} })).toEqual({
      name: "new-ide",
      prompts: "shown",
      capped: false,
      basis: "declared",
    });
  });

  test("an unknown client that declares nothing, or sends no name, is unknown", () => {
    expect(client("skill-central-tests", { roots: {} })).toEqual({
      name: "skill-central-tests",
      prompts: "unknown",
      capped: false,
      basis: "unknown",
    });
    expect(clientProfile(undefined, undefined)).toEqual({
      name: undefined,
      prompts: "unknown",
      capped: false,
      basis: "unknown",
    });
    expect(clientProfile({ name: 42 }, undefined).name).toBeUndefined();
  });

  test("the known table lists each client once, lower-case", () => {
    const names = knownClients().map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((n) => n === n.toLowerCase())).toBe(true);
  });
});

describe("tool names fit the client's tool list, prefix included", () => {
  test("mcp__skill-central__<name> must match ^[a-zA-Z0-9_-]{1,64}$", () => {
    expect(CLIENT_TOOL_PREFIX).toBe("mcp__skill-central__");
    expect(fitsAsToolName("find_skills")).toBe(true);
    expect(fitsAsToolName("a".repeat(44))).toBe(true);
    expect(fitsAsToolName("a".repeat(45))).toBe(false);
    expect(fitsAsToolName("has space")).toBe(false);
  });
});

describe("planning tools/list per client (catalog: auto)", () => {
  const auto = settings();

  test("Windsurf and Codex (tools, no prompts) get find_skills and load_skill beside the tool skills", () => {
    expect(shape(planTools(auto, client("windsurf-client"), counts(5)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
    expect(shape(planTools(auto, client("codex-mcp-client"), counts(5)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
    expect(planTools(auto, client("codex-mcp-client"), counts(5)).why).toBe(
      '"codex-mcp-client" takes tools but not prompts',
    );
  });

  test("Claude Code, Cursor and VS Code (prompts shown) get no catalog while their tool skills fit", () => {
    for (const name of ["claude-code", "cursor-vscode", "Visual Studio Code"]) {
      expect(shape(planTools(auto, client(name), counts(40)))).toEqual({
        catalog: false,
        run: false,
        toolSkills: true,
      });
    }
  });

  test("a capped client with more tool skills than toolCap gets the catalog instead: three tools, all of them behind run_skill_tool", () => {
    expect(shape(planTools(auto, client("cursor-vscode"), counts(41)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: false,
    });
    expect(planTools(auto, client("cursor-vscode"), counts(60)).why).toBe(
      '60 tool skills would exceed toolCap 40 for "cursor-vscode"',
    );
    // Claude Code takes any number.
    expect(shape(planTools(auto, client("claude-code"), counts(200)))).toEqual({
      catalog: false,
      run: false,
      toolSkills: true,
    });
  });

  test("for Windsurf the catalog's own two tools count against the cap", () => {
    expect(planTools(auto, client("windsurf-client"), counts(38)).toolSkills).toBe(true);
    expect(shape(planTools(auto, client("windsurf-client"), counts(39)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: false,
    });
  });

  test("toolCap moves the threshold", () => {
    expect(planTools(settings({ toolCap: 100 }), client("cursor-vscode"), counts(60)).toolSkills).toBe(true);
    expect(planTools(settings({ toolCap: 3 }), client("cursor-vscode"), counts(4)).toolSkills).toBe(false);
  });

  test("an unknown client is served as before; one declaring tools without prompts is treated as tool-only and capped", () => {
    expect(shape(planTools(auto, client("skill-central-tests"), counts(500)))).toEqual({
      catalog: false,
      run: false,
      toolSkills: true,
    });
    expect(shape(planTools(auto, client("new-agent", { tools: {} }), counts(10)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
    expect(shape(planTools(auto, client("new-agent", { tools: {} }), counts(60)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: false,
    });
  });

  test("tool skills whose names would not fit are behind run_skill_tool for every client, so the catalog comes on", () => {
    expect(shape(planTools(auto, client("claude-code"), counts(3, 1)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: true,
    });
    expect(planTools(auto, client("claude-code"), counts(3, 2)).why).toBe(
      "2 tool skill names are too long for a tool list",
    );
  });

  test("no tool skills at all: a tool-only client still gets find_skills and load_skill (for the prompts), never run_skill_tool", () => {
    expect(shape(planTools(auto, client("windsurf-client"), counts(0)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
  });
});

describe("catalog: on, off, and toolSkills: catalog", () => {
  test("on gives every client the catalog; the tool skills stay tools where they fit", () => {
    expect(shape(planTools(settings({ mode: "on" }), client("claude-code"), counts(3)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
    expect(shape(planTools(settings({ mode: "on" }), client("cursor-vscode"), counts(38)))).toEqual({
      catalog: true,
      run: false,
      toolSkills: true,
    });
    expect(shape(planTools(settings({ mode: "on" }), client("cursor-vscode"), counts(39)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: false,
    });
  });

  test("off gives no client the catalog, and lists every tool skill whose name fits, cap or not", () => {
    for (const name of ["windsurf-client", "codex-mcp-client", "cursor-vscode"]) {
      expect(shape(planTools(settings({ mode: "off" }), client(name), counts(200, 1)))).toEqual({
        catalog: false,
        run: false,
        toolSkills: true,
      });
    }
  });

  test("toolSkills: catalog puts every tool skill behind run_skill_tool, for every client", () => {
    expect(shape(planTools(settings({ toolSkills: "catalog" }), client("claude-code"), counts(2)))).toEqual({
      catalog: true,
      run: true,
      toolSkills: false,
    });
    expect(planTools(settings({ toolSkills: "catalog" }), client("claude-code"), counts(2)).why).toBe(
      "toolSkills: catalog",
    );
  });

  test("settings merge key by key: user, then project, then the command line", () => {
    expect(mergeCatalogSettings({ mode: "on", toolCap: 10 }, { toolCap: 20 }, { mode: "off" })).toEqual({
      mode: "off",
      toolSkills: "tools",
      toolCap: 20,
    });
    expect(mergeCatalogSettings(undefined, undefined)).toEqual({ mode: "auto", toolSkills: "tools", toolCap: 40 });
  });
});

describe("the id rule and the tool-list rule agree", () => {
  test("MAX_TOOL_ID_LENGTH is exactly what fitsAsToolName allows for a valid id", async () => {
    const { MAX_TOOL_ID_LENGTH } = await import("../../src/skill/id.ts");
    expect(fitsAsToolName("a".repeat(MAX_TOOL_ID_LENGTH))).toBe(true);
    expect(fitsAsToolName("a".repeat(MAX_TOOL_ID_LENGTH + 1))).toBe(false);
  });
});

describe("a plan says why", () => {
  test("when there is no catalog", () => {
    expect(planTools(settings(), client("claude-code"), counts(3)).why).toBe(
      'no catalog for "claude-code": prompts and tool skills as they are',
    );
    expect(planTools(settings({ mode: "off" }), client("windsurf-client"), counts(3)).why).toBe("catalog: off");
  });
});
