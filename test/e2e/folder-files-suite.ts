import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, type Connected, type ServerTarget } from "../helpers/server.ts";
import { eventually, textOf } from "./live-session.ts";
import { runCommand, type CliRun } from "./cli-run.ts";

/**
 * What a skill folder publishes, over MCP and in the CLI, from the source entry or the compiled
 * binary: everything in the folder (`_` names included: `scripts/__init__.py` makes a Python
 * package) except hidden names, which `show` and `validate` name, and `examples.yaml`, which only
 * `skill-central test` reads.
 */

const SKILL_MD =
  "---\nname: py-helper\ndescription: Run the team's Python helper on a file\n---\nRun `python -m scripts ${CLAUDE_SKILL_DIR}` on $ARGUMENTS.\n";
const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./skills, priority: 10 }\n",
  "skills/py-helper/SKILL.md": SKILL_MD,
  "skills/py-helper/scripts/__init__.py": "",
  "skills/py-helper/scripts/__main__.py": "from ._util import main\nmain()\n",
  "skills/py-helper/scripts/_util.py": "def main():\n    print('ok')\n",
  "skills/py-helper/_assets/banner.txt": "helper\n",
  "skills/py-helper/examples.yaml": "- arguments: { arguments: report.csv }\n  contains: [report.csv]\n",
  "skills/py-helper/.DS_Store": "\x00\x00\x00\x01Bud1",
  "skills/py-helper/.git/HEAD": "ref: refs/heads/main\n",
  "skills/py-helper/scripts/.env": "TOKEN=not-for-hosts\n",
  // In a layer (outside any skill folder) `_` still means "not a skill".
  "skills/_drafts/draft/SKILL.md": "---\nname: draft\ndescription: Not ready\n---\nDraft.\n",
};

/** The files a host gets, in URI order. */
const PUBLISHED = ["SKILL.md", "_assets/banner.txt", "scripts/__init__.py", "scripts/__main__.py", "scripts/_util.py"];

type Structured<T> = { structuredContent: T; isError?: boolean; content: { text: string }[] };

/** The CLI of a server target: its command without the trailing `mcp`. */
function cli(target: ServerTarget, fixture: Fixture, ...args: string[]): Promise<CliRun> {
  const env = { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" };
  return runCommand([target.command, ...target.args.slice(0, -1), ...args], fixture.cwd, env);
}

export function folderFilesSuite(target: ServerTarget): void {
  describe(`a link inside a skill folder (${target.name})`, () => {
    test("is left out of what skills/list publishes, and the server logs why once, when it walks the folder", async () => {
      const fixture = makeFixture({
        "skill-central.yaml": FILES["skill-central.yaml"]!,
        "skills/py-helper/SKILL.md": SKILL_MD,
        "skills/py-helper/notes.md": "notes\n",
        "outside.txt": "not part of any skill\n",
      });
      symlinkSync(join(fixture.cwd, "outside.txt"), join(fixture.cwd, "skills/py-helper/leak.txt"));
      const session = await connect(target, fixture.cwd, fixture.home);
      try {
        const warning =
          "skills/py-helper/leak.txt: warning: left out of the skill: links are not followed inside a skill folder";
        const skills = new SkillsClient(session.client);
        const { skills: entries } = await skills.list();
        const resources = entries[0]!.resources as { uri: string }[];
        expect(resources.map((r) => r.uri)).toEqual(["skill://py-helper/SKILL.md", "skill://py-helper/notes.md"]);
        await eventually(() => expect(session.stderr()).toContain(warning));
        await skills.list();
        await skills.read(entries[0]!, "skill://py-helper/notes.md");
        expect(session.stderr().split(warning).length - 1).toBe(1);
        expect(session.stderr()).not.toContain("not part of any skill");
      } finally {
        await session.close();
        fixture.cleanup();
      }
    });
  });

  describe(`a skill folder's files (${target.name})`, () => {
    let fixture: Fixture;
    let session: Connected;
    let client: Client;
    beforeAll(async () => {
      fixture = makeFixture(FILES);
      session = await connect(target, fixture.cwd, fixture.home, ["--catalog", "on"]);
      client = session.client;
    });
    afterAll(async () => {
      await session?.close();
      fixture?.cleanup();
    });

    test("skills/list publishes every file but hidden names and examples.yaml, _ names included, each reading back as its digest promises", async () => {
      const skills = new SkillsClient(client);
      const { skills: entries } = await skills.list();
      expect(entries.map((e) => e.uri)).toEqual(["skill://py-helper/SKILL.md"]);
      const resources = entries[0]!.resources as { uri: string; digest: string; size: number }[];
      expect(resources.map((r) => r.uri)).toEqual(PUBLISHED.map((p) => `skill://py-helper/${p}`));
      for (const [i, resource] of resources.entries()) {
        const file = await skills.read(entries[0]!, resource.uri);
        expect(file.verified).toBe(true);
        expect(Buffer.from(file.bytes).equals(readFileSync(join(fixture.cwd, "skills/py-helper", PUBLISHED[i]!)))).toBe(
          true,
        );
      }
      expect((await skills.readDirectory("skill://py-helper")).resources.map((r) => r.name)).toEqual([
        "SKILL.md",
        "_assets",
        "scripts",
      ]);
      expect((await skills.readDirectory("skill://py-helper/scripts")).resources.map((r) => r.name)).toEqual([
        "__init__.py",
        "__main__.py",
        "_util.py",
      ]);
    });

    test("resources/read serves scripts/__init__.py and refuses examples.yaml and hidden files as not files of the skill", async () => {
      const init = await client.readResource({ uri: "skill://py-helper/scripts/__init__.py" });
      expect(init.contents).toEqual([
        { uri: "skill://py-helper/scripts/__init__.py", mimeType: expect.any(String), text: "" },
      ]);
      for (const path of ["examples.yaml", ".DS_Store", ".git/HEAD", "scripts/.env"]) {
        const refused = await client.readResource({ uri: `skill://py-helper/${path}` }).then(
          () => undefined,
          (error: { code: number; message: string }) => error,
        );
        expect(refused?.code).toBe(-32602);
        expect(refused?.message).toContain("not a file of the skill");
      }
    });

    test("load_skill lists the same files and reads a _ file; examples.yaml is not one of them", async () => {
      const loaded = (await client.callTool({
        name: "load_skill",
        arguments: { name: "py-helper", arguments: "report.csv" },
      })) as Structured<{ files: { path: string }[] }>;
      expect(loaded.structuredContent.files.map((f) => f.path)).toEqual(PUBLISHED.slice(1));
      const util = await client.callTool({
        name: "load_skill",
        arguments: { name: "py-helper", path: "scripts/_util.py" },
      });
      expect(textOf(util)).toBe(FILES["skills/py-helper/scripts/_util.py"]!);
      const examples = (await client.callTool({
        name: "load_skill",
        arguments: { name: "py-helper", path: "examples.yaml" },
      })) as unknown as Structured<unknown>;
      expect(examples.isError).toBe(true);
      expect(examples.content[0]!.text).toStartWith(
        `No file "examples.yaml" in skill "py-helper"; its files: ${PUBLISHED.join(", ")}`,
      );
    });

    test("a _ folder of the layer is still not a skill, and the server logs nothing about the folder", async () => {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["py-helper", "skills:compose"]);
      expect(session.stderr()).toBe("");
    });

    test("show marks examples.yaml test-only and names each file left out; validate names them as notes and passes --strict", async () => {
      const shown = await cli(target, fixture, "show", "py-helper");
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(
        "examples  1 in examples.yaml (test-only: run by skill-central test, not published to clients)\n",
      );
      expect(shown.stdout).toContain("Files (5, with the digest a host verifies each read against)\n");
      expect(shown.stdout).toMatch(/\n {2}scripts\/__init__\.py +0 +e3b0c44298fc1c14\n/);
      expect(shown.stdout).toContain(
        "\nLeft out (hidden names are never part of a skill)\n  .DS_Store\n  .git/\n  scripts/.env\n",
      );
      const validated = await cli(target, fixture, "validate", "--strict");
      expect(validated.code).toBe(0);
      const notes = validated.stdout.trim().split("\n");
      expect(notes).toEqual(
        [".DS_Store", ".git/", "scripts/.env"].map(
          (name) =>
            `skills/py-helper/${name}: note: left out of skill "py-helper": hidden names (starting with ".") are never part of a skill — rename it without the leading dot if hosts need it`,
        ),
      );
      expect(validated.stderr).toBe("no errors, 0 warnings in 1 file; 1 example run, 0 failed\n");
    });

    test("skill-central test still runs examples.yaml", async () => {
      const tested = await cli(target, fixture, "test");
      expect(tested.code).toBe(0);
      expect(tested.stdout).toBe("pass  py-helper example 1\n\n1 example: 1 passed, 0 failed\n");
    });
  });
}
