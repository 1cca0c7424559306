import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, REPO_ROOT, type Connected, type ServerTarget } from "../helpers/server.ts";
import { findSkillsPagingSuite, toolNames } from "./catalog-suite.ts";
import { textOf } from "./live-session.ts";

type Structured<T> = { structuredContent: T; isError?: boolean };

/** The compiled executable, for the paging suite (built in this file's first beforeAll). */
const binaryTarget: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

describe("the catalog in the compiled binary", () => {
  let binary: string;
  let fixture: Fixture;
  let session: Connected;

  beforeAll(async () => {
    binary = await buildForTests();
    binaryTarget.command = binary;
    fixture = makeFixture(); // an empty project and HOME: only the skills inside the binary
    session = await connect(
      { name: "binary", command: binary, args: ["mcp"] },
      fixture.cwd,
      fixture.home,
      [],
      "legacy",
      { name: "windsurf-client" },
    );
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("Windsurf finds a built-in prompt skill, loads it, and reads a file of the built-in folder from inside the binary", async () => {
    const { client } = session;
    expect(await toolNames(client)).toContain("find_skills");
    const found = (await client.callTool({
      name: "find_skills",
      arguments: { query: "postmortem after an outage" },
    })) as Structured<{ skills: { name: string; layer: string }[] }>;
    expect(found.structuredContent.skills[0]).toMatchObject({ name: "incident-postmortem", layer: "builtin" });
    const loaded = (await client.callTool({
      name: "load_skill",
      arguments: { name: "incident-postmortem", arguments: "checkout failed for 20 minutes" },
    })) as Structured<{ text: string; files: { uri: string }[] }>;
    expect(loaded.structuredContent.text).toStartWith("# Incident postmortem");
    expect(loaded.structuredContent.text).toContain("checkout failed for 20 minutes");
    expect(loaded.structuredContent.files.map((f) => f.uri)).toContain(
      "skill://incident-postmortem/references/template.md",
    );
    const file = await client.callTool({
      name: "load_skill",
      arguments: { name: "incident-postmortem", path: "skill://incident-postmortem/references/template.md" },
    });
    expect(textOf(file)).toBe(
      readFileSync(join(REPO_ROOT, "skills/incident-postmortem/references/template.md"), "utf8"),
    );
    expect(session.stderr()).toBe("");
  });
});

findSkillsPagingSuite(binaryTarget);
