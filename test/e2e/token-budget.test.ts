import { afterAll, describe, expect, test } from "bun:test";
import { catalogFixtureFiles, CATALOG_TOOL_IDS } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, SOURCE_TARGET, type Connected } from "../helpers/server.ts";
import { textOf } from "./live-session.ts";

/** The catalog fixture with `tokenBudget` added to its project config. */
function budgetFixture(tokenBudget: number): Fixture {
  const files = catalogFixtureFiles();
  files["skill-central.yaml"] += `tokenBudget: ${tokenBudget}\n`;
  return makeFixture(files);
}

describe("tokenBudget over stdio, for the SDK's own client named claude-code", () => {
  const fixtures: Fixture[] = [];
  const sessions: Connected[] = [];
  const open = async (tokenBudget: number, era: "legacy" | "modern" = "legacy") => {
    const fixture = budgetFixture(tokenBudget);
    fixtures.push(fixture);
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, [], era, { name: "claude-code" });
    sessions.push(session);
    return session.client;
  };
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    for (const f of fixtures) f.cleanup();
  });

  test("over its budget, claude-code gets the catalog: find_skills, load_skill, run_skill_tool, no prompts listed, every skill still reachable", async () => {
    const client = await open(600);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "find_skills",
      "load_skill",
      "run_skill_tool",
    ]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const loaded = await client.callTool({
      name: "load_skill",
      arguments: { name: "incident-postmortem", arguments: "payments outage" },
    });
    expect(textOf(loaded)).toContain("Work on: payments outage");
    // A person who types a prompt's name still gets it.
    const prompt = await client.getPrompt({ name: "review-pr", arguments: { subject: "the login change" } });
    expect(JSON.stringify(prompt.messages)).toContain("the login change");
  });

  test("over its budget on 2026-07-28, server/discover's instructions are the catalog's", async () => {
    const client = await open(600, "modern");
    await client.listTools();
    const discovered = (await client.request({ method: "server/discover", params: {} })) as { instructions?: string };
    expect(discovered.instructions).toContain("call find_skills with a few words");
  });

  test("under its budget, nothing changes: prompts and tool skills as before, no catalog tools", async () => {
    const client = await open(100_000);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...CATALOG_TOOL_IDS].sort());
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toContain("incident-postmortem");
    expect(prompts).toContain("review-pr");
  });
});
