import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connect, listPage, SOURCE_TARGET, type Connected, wireError } from "../helpers/server.ts";
import { eventually, ListChanges } from "./live-session.ts";

const CONFIG = (pageSize: number) =>
  `builtin: false\npageSize: ${pageSize}\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n`;
const TOOL = (id: string) => `id: ${id}\ndescription: Tool ${id}\ntype: tool\n`;

/** Follows nextCursor to the end; returns every page's names. */
async function allPages(
  list: (cursor?: string) => Promise<{ names: string[]; nextCursor?: string }>,
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    pages.push(page.names);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("pagination with pageSize in the config", () => {
  let fixture: Fixture;
  let session: Connected;
  let client: Client;
  let changes: ListChanges;
  const prompts = (cursor?: string) => listPage(client, "prompts/list", cursor);

  beforeAll(async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG(2),
      "team/a.yaml": promptSkill("a"),
      "team/b.yaml": promptSkill("b"),
      "team/c.yaml": promptSkill("c"),
      "team/d.yaml": promptSkill("d"),
      "team/t1.yaml": TOOL("t1"),
      "team/t2.yaml": TOOL("t2"),
      "team/t3.yaml": TOOL("t3"),
    });
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    client = session.client;
    changes = new ListChanges(session.client);
  });
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("prompts/list pages by the configured size and the last page has no nextCursor", async () => {
    expect(await allPages(prompts)).toEqual([["a", "b"], ["c", "d"], ["skills:compose"]]);
  });

  test("tools/list and resources/list page the same way", async () => {
    const tools = await allPages((cursor) => listPage(client, "tools/list", cursor));
    expect(tools).toEqual([["t1", "t2"], ["t3"]]);
    const resources = await allPages((cursor) => listPage(client, "resources/list", cursor));
    expect(resources.flat()).toEqual([
      "skill-central://registry",
      ...["a", "b", "c", "d", "t1", "t2", "t3"].map((id) => `skill-central://skills/${id}`),
      // Each prompt skill's SKILL.md, as the skills extension publishes it; tools have none.
      ...["a", "b", "c", "d"].map((id) => `skill://${id}/SKILL.md`),
    ]);
    expect(resources.map((p) => p.length)).toEqual([2, 2, 2, 2, 2, 2]);
  });

  test("a cursor stays valid across a reload, even when the item it ended on is deleted", async () => {
    const first = await prompts();
    expect(first.names).toEqual(["a", "b"]);
    fixture.remove("team/b.yaml");
    fixture.write("team/aa.yaml", promptSkill("aa"));
    fixture.write("team/bb.yaml", promptSkill("bb"));
    await changes.waitFor("prompts", 1);
    // Resumes after "b": "aa" (before the cursor) is on a page already passed; "bb" comes next.
    expect(await prompts(first.nextCursor)).toEqual({ names: ["bb", "c"], nextCursor: expect.any(String) });
  });

  test("a cursor from another list, or one the server never issued, is -32602", async () => {
    const tools = await listPage(client, "tools/list");
    const fromTools = await wireError(client.listPrompts({ cursor: tools.nextCursor! }));
    expect(fromTools.code).toBe(-32602);
    expect(fromTools.message).toContain("Invalid cursor for prompts/list");
    expect((await wireError(client.listResources({ cursor: "%%%" }))).code).toBe(-32602);
    expect((await wireError(client.listResourceTemplates({ cursor: "x" }))).code).toBe(-32602);
  });

  test("editing pageSize in the config takes effect without a list change", async () => {
    fixture.write("skill-central.yaml", CONFIG(3));
    await eventually(async () => expect((await prompts()).names).toHaveLength(3));
    expect(changes.counts.prompts).toBe(1);
  });
});

describe("command-line flags", () => {
  test("--page-size overrides the config's pageSize", async () => {
    const fixture = makeFixture({
      "skill-central.yaml": CONFIG(2),
      "team/a.yaml": promptSkill("a"),
      "team/b.yaml": promptSkill("b"),
      "team/c.yaml": promptSkill("c"),
    });
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--page-size", "3"]);
    try {
      const first = await listPage(session.client, "prompts/list");
      expect(first.names).toEqual(["a", "b", "c"]);
      expect((await listPage(session.client, "prompts/list", first.nextCursor!)).names).toEqual(["skills:compose"]);
    } finally {
      await session.close();
      fixture.cleanup();
    }
  });

  test("without a page size everything is one page with no nextCursor", async () => {
    const fixture = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n",
      "team/a.yaml": promptSkill("a"),
    });
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      expect(await listPage(session.client, "prompts/list")).toEqual({ names: ["a", "skills:compose"] });
    } finally {
      await session.close();
      fixture.cleanup();
    }
  });
});
