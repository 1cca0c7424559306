import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, initializeLine, rawSession, SOURCE_TARGET, type Connected, wireError } from "../helpers/server.ts";
import { eventually, ListChanges, textOf } from "./live-session.ts";

const CONFIG = (extraLayers = "") =>
  `builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: later, path: ./later/deep, priority: 20 }\n${extraLayers}`;

const ALPHA = (description: string, body: string) =>
  `id: alpha\nname: Alpha\ndescription: ${description}\ntype: prompt\ntags: [kmp]\nprompt: ${body}\n`;
const HAMMER = (description: string) =>
  `id: hammer\ndescription: ${description}\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    nail: { type: string }\n  required: [nail]\nprompt: 'Hit {{nail}}'\n`;
const SAW = (description: string, body: string) =>
  `id: saw\ndescription: ${description}\ntype: tool\ninputSchema: { type: object, properties: { board: { type: string } } }\nprompt: '${body} {{board}}'\n`;

/** How editors save: write a temporary file beside it, then rename it over the original. */
function saveAtomically(fixture: Fixture, path: string, text: string): void {
  const full = join(fixture.cwd, path);
  const temp = join(dirname(full), `.${basename(full)}.tmp`);
  writeFileSync(temp, text);
  renameSync(temp, full);
}

describe("live reload under a connected client", () => {
  let fixture: Fixture;
  let session: Connected;
  let client: Client;
  let changes: ListChanges;

  const promptNames = async () => (await client.listPrompts()).prompts.map((p) => p.name);
  const prompt = async (name: string) => (await client.listPrompts()).prompts.find((p) => p.name === name);
  const tool = async (name: string) => (await client.listTools()).tools.find((t) => t.name === name);

  beforeAll(async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG(),
      "team/alpha.yaml": ALPHA("Alpha v1", "first body"),
      "team/hammer.yaml": HAMMER("Hammer v1"),
    });
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    client = session.client;
    changes = new ListChanges(session.client);
  });
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("1. the startup set is served", async () => {
    expect(await promptNames()).toEqual(["alpha", "skills:compose"]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["hammer"]);
    expect(textOf(await client.getPrompt({ name: "alpha" }))).toBe("first body");
  });

  test("2. editing only a prompt's body changes what it renders and its published SKILL.md: resources/list_changed only", async () => {
    const skills = new SkillsClient(client);
    const before = await skills.get("skill://alpha/SKILL.md");
    fixture.write("team/alpha.yaml", ALPHA("Alpha v1", "second body"));
    await changes.waitFor("resources", 1);
    // One reload's notifications go out prompts first, then tools, then resources: none came for the first two.
    expect(changes.counts).toEqual({ prompts: 0, tools: 0, resources: 1 });
    expect(textOf(await client.getPrompt({ name: "alpha" }))).toBe("second body");
    const after = await skills.get("skill://alpha/SKILL.md");
    expect(after.skill.resources).not.toEqual(before.skill.resources);
    expect((await skills.read(after.skill)).body).toBe("second body");
  });

  test("3. editing a description sends prompts/list_changed (and resources, whose entries carry it), not tools", async () => {
    fixture.write("team/alpha.yaml", ALPHA("Alpha v2", "second body"));
    await changes.waitFor("prompts", 1);
    await changes.waitFor("resources", 2);
    expect(changes.counts).toEqual({ prompts: 1, tools: 0, resources: 2 });
    expect((await prompt("alpha"))?.description).toBe("Alpha v2");
    expect(
      (await client.listResources()).resources.find((r) => r.uri === "skill-central://skills/alpha")?.description,
    ).toBe("Alpha v2");
  });

  test("4. a half-saved file keeps serving its last good version, with a warning naming file:line:col", async () => {
    fixture.write("team/alpha.yaml", "id: alpha\ndescription: [Alpha v3\ntype: pro");
    await eventually(() =>
      expect(session.stderr()).toMatch(
        /team\/alpha\.yaml:\d+:\d+: warning: not reloaded, still serving its last good version: invalid YAML/,
      ),
    );
    expect(textOf(await client.getPrompt({ name: "alpha" }))).toBe("second body");
    expect((await prompt("alpha"))?.description).toBe("Alpha v2");
  });

  test("5. a tool whose schema turns invalid keeps its last good version too", async () => {
    fixture.write("team/hammer.yaml", HAMMER("Hammer v2").replace("type: string", "type: strnig"));
    await eventually(() =>
      expect(session.stderr()).toMatch(
        /team\/hammer\.yaml:\d+:\d+: warning: not reloaded, still serving its last good version: /,
      ),
    );
    expect((await tool("hammer"))?.description).toBe("Hammer v1");
    expect(textOf(await client.callTool({ name: "hammer", arguments: { nail: "it" } }))).toBe("Hit it");
  });

  test("6. fixing the file (saved atomically, as editors do) serves the new version", async () => {
    saveAtomically(fixture, "team/alpha.yaml", ALPHA("Alpha v3", "third body"));
    await changes.waitFor("prompts", 2);
    expect((await prompt("alpha"))?.description).toBe("Alpha v3");
    expect(textOf(await client.getPrompt({ name: "alpha" }))).toBe("third body");
  });

  test("7. adding a tool file sends tools/list_changed; the new tool is listed, callable and a resource", async () => {
    fixture.write("team/saw.yaml", SAW("Team saw", "Cut"));
    await changes.waitFor("tools", 1);
    await changes.waitFor("resources", 4);
    // Notifications of one reload go out prompts first: none came for prompts.
    expect(changes.counts.prompts).toBe(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["hammer", "saw"]);
    expect(textOf(await client.callTool({ name: "saw", arguments: { board: "oak" } }))).toBe("Cut oak");
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain("skill-central://skills/saw");
  });

  test("8. deleting a file removes its prompt, its resource and its tags", async () => {
    fixture.remove("team/alpha.yaml");
    await changes.waitFor("prompts", 3);
    expect(await promptNames()).toEqual(["skills:compose"]);
    expect(await wireError(client.getPrompt({ name: "alpha" }))).toEqual({
      code: -32602,
      message: "Unknown prompt skill: alpha",
    });
    expect(
      (await wireError(client.getPrompt({ name: "skills:compose", arguments: { tags: "kmp" } }))).message,
    ).toContain("No skills found for tags: kmp");
    await changes.waitFor("resources", 5);
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain("skill-central://skills/alpha");
    expect((await wireError(client.readResource({ uri: "skill-central://skills/alpha" }))).code).toBe(-32602);
  });

  test("9. a layer folder that did not exist starts serving when it is created, nested folders included", async () => {
    fixture.write(
      "later/deep/gamma.yaml",
      "id: gamma\ndescription: From a late layer\ntype: prompt\nprompt: gamma body\n",
    );
    await changes.waitFor("prompts", 4);
    expect(await promptNames()).toEqual(["gamma", "skills:compose"]);
  });

  test("10. a config edit that adds a higher-priority layer overrides a skill; the resolution chain says why", async () => {
    fixture.write("override/saw.yaml", SAW("Override saw", "Rip"));
    fixture.write("skill-central.yaml", CONFIG("  - { name: override, path: ./override, priority: 80 }\n"));
    await changes.waitFor("tools", 2);
    expect((await tool("saw"))?.description).toBe("Override saw");
    expect(textOf(await client.callTool({ name: "saw", arguments: { board: "oak" } }))).toBe("Rip oak");
    const { contents } = await client.readResource({ uri: "skill-central://skills/saw" });
    const body = JSON.parse((contents[0] as { text: string }).text) as { chain: { layer: string; status: string }[] };
    expect(body.chain.map((c) => [c.layer, c.status])).toEqual([
      ["override", "effective"],
      ["team", "shadowed"],
    ]);
  });

  test("11. re-prioritising that layer below the other hands the id back", async () => {
    fixture.write("skill-central.yaml", CONFIG("  - { name: override, path: ./override, priority: 10 }\n"));
    await changes.waitFor("tools", 3);
    expect((await tool("saw"))?.description).toBe("Team saw");
  });

  test("12. a burst of saves is one reload", async () => {
    const reloadsBefore = session.stderr().split("reloaded in").length;
    for (let i = 1; i <= 10; i++) fixture.write("team/saw.yaml", SAW(`Team saw ${i}`, "Cut"));
    await changes.waitFor("tools", 4);
    expect((await tool("saw"))?.description).toBe("Team saw 10");
    expect(session.stderr().split("reloaded in").length - reloadsBefore).toBe(1);
  });
  test("13. a layer folder replaced in one go (deleted and recreated within a burst) is watched again", async () => {
    // As `git checkout` or `rm -rf team && cp -r …` do: one reload sees the new folder at the old path.
    fixture.remove("team");
    fixture.write("team/hammer.yaml", HAMMER("Hammer reborn"));
    await changes.waitFor("tools", 5);
    await eventually(async () => expect((await tool("hammer"))?.description).toBe("Hammer reborn"));
    // An edit inside the new folder is seen: the watch is on the new folder, not the deleted one.
    fixture.write("team/hammer.yaml", HAMMER("Hammer edited"));
    await eventually(async () => expect((await tool("hammer"))?.description).toBe("Hammer edited"));
  });
});

/** A server on raw pipes, for what the SDK client would hide: exact stdout, exit timing. */
function spawnRaw(fixture: Fixture) {
  const proc = Bun.spawn([SOURCE_TARGET.command, ...SOURCE_TARGET.args], {
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let stdout = "";
  return {
    proc,
    stdout: () => stdout,
    async send(...messages: unknown[]) {
      proc.stdin.write(messages.map((m) => `${typeof m === "string" ? m : JSON.stringify(m)}\n`).join(""));
      await proc.stdin.flush();
    },
    /** Reads stdout until it contains `needle`. */
    async readUntil(needle: string) {
      while (!stdout.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout ended before ${needle}`);
        stdout += decoder.decode(value, { stream: true });
      }
    },
  };
}

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const toolsList = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

describe("watching and the process lifecycle", () => {
  // A watcher left open would keep the process running to this test's timeout.
  test("after a reload and its notification, stdin EOF still exits 0 (watchers closed)", async () => {
    const fixture = makeFixture({ "skill-central.yaml": CONFIG(), "team/hammer.yaml": HAMMER("h1") });
    try {
      const raw = spawnRaw(fixture);
      await raw.send(initializeLine(1), INITIALIZED, toolsList(2));
      await raw.readUntil('"id":2');
      fixture.write("team/hammer.yaml", HAMMER("h2"));
      await raw.readUntil("notifications/tools/list_changed");
      raw.proc.stdin.end();
      expect(await raw.proc.exited).toBe(0);
    } finally {
      fixture.cleanup();
    }
  });

  test("no list_changed goes out before the client has sent notifications/initialized", async () => {
    const fixture = makeFixture({ "skill-central.yaml": CONFIG(), "team/hammer.yaml": HAMMER("h1") });
    try {
      const raw = spawnRaw(fixture);
      await raw.send(initializeLine(1), toolsList(2));
      await raw.readUntil('"id":2');
      fixture.write("team/hammer.yaml", HAMMER("h2"));
      // The reload is seen through the served list; then every line so far is checked.
      for (let id = 3; !raw.stdout().includes('"description":"h2"'); id++) {
        await Bun.sleep(25);
        await raw.send(toolsList(id));
        await raw.readUntil(`"id":${id}`);
      }
      expect(
        raw
          .stdout()
          .split("\n")
          .filter((line) => line.includes('"method":"notifications/')),
      ).toEqual([]);
      raw.proc.stdin.end();
      expect(await raw.proc.exited).toBe(0);
    } finally {
      fixture.cleanup();
    }
  });

  test("with nothing reloaded yet, stdin EOF exits 0", async () => {
    const fixture = makeFixture({ "skill-central.yaml": CONFIG(), "team/hammer.yaml": HAMMER("h") });
    try {
      const raw = await rawSession(
        SOURCE_TARGET,
        fixture.cwd,
        fixture.home,
        [initializeLine(1), JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })],
        2,
      );
      expect(raw.exitCode).toBe(0);
    } finally {
      fixture.cleanup();
    }
  });
});
