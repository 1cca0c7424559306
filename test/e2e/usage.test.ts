import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DAMAGE } from "../helpers/damaged-store.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { openSession, type JsonRpcSession } from "../helpers/jsonrpc-session.ts";
import { SOURCE_ENTRY } from "../helpers/server.ts";
import { NO_PROJECT, readUsage } from "../../src/storage/usage-store.ts";
import { folderProject } from "../../src/storage/project-identity.ts";
import { openUsageDatabase } from "../../src/storage/usage-sqlite.ts";
import { runCli } from "./cli-run.ts";

/**
 * The usage history end to end (issue 35): real server processes over stdio record every use
 * into the shared store in the user's state folder, and `usage` reads it back.
 */

const SKILLS: Record<string, string> = {
  ".skills/greet.yaml": `id: greet
description: Greet someone by name before a meeting starts
type: prompt
tags: [team]
arguments:
  - { name: who, required: false }
prompt: "Hello {{who}}"
`,
  ".skills/echo.yaml": `id: echo
description: Echo a message back as the tool result for testing
type: tool
inputSchema:
  type: object
  properties: { message: { type: string } }
prompt: "echo: {{message}}"
`,
  ".skills/old-greet.yaml": `id: old-greet
description: Greet someone the old way, with a formal letter
type: prompt
tags: [team]
deprecated: "use greet instead"
prompt: "Dear colleague"
`,
  ".skills/old-echo.yaml": `id: old-echo
description: Echo a message the old way for legacy scripts
type: tool
deprecated: "use echo instead"
prompt: "old echo"
`,
  ".skills/beta-deploy.yaml": `id: beta-deploy
description: Deploy a preview build to the beta environment
type: prompt
enabled: false
prompt: "deploy the preview"
`,
  ".skills/retired-folder/SKILL.md": `---
name: retired-folder
description: Review a change with the retired checklist, kept for old branches
metadata:
  deprecated: "use review-pr instead"
---
Use the retired checklist.
`,
  ".skills/beta-folder/SKILL.md": `---
name: beta-folder
description: Try the beta review flow on a change before it ships
metadata:
  enabled: "false"
---
Beta flow.
`,
};

const storePath = (f: Fixture) => join(f.home, ".local", "state", "skill-central", "usage.db");

function server(f: Fixture, clientName: string): { session: JsonRpcSession; ready: Promise<unknown> } {
  const session = openSession([process.execPath, SOURCE_ENTRY, "mcp", "--no-builtin", "--no-watch"], {
    cwd: f.cwd,
    env: { HOME: f.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  const ready = session
    .request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: clientName, version: "1.0.0" },
    })
    .then(() => session.notify("notifications/initialized"));
  return { session, ready };
}

async function usageJson(f: Fixture, ...args: string[]) {
  const run = await runCli(["usage", "--json", "--no-builtin", ...args], f.cwd, f.home);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as {
    since: string;
    skills: { id: string; uses: number; refused: number; lastUsed: string; clients: Record<string, number> }[];
    unused: string[];
  };
}

let fixture: Fixture | undefined;
afterEach(() => fixture?.cleanup());

describe("usage history", () => {
  test("every kind of use is recorded with its client and outcome, and `usage --json` reports it", async () => {
    fixture = makeFixture(SKILLS);
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    expect((await session.request("prompts/get", { name: "greet", arguments: { who: "Ada" } })).error).toBeUndefined();
    expect(
      (await session.request("tools/call", { name: "echo", arguments: { message: "hi" } })).result?.isError,
    ).toBeUndefined();
    // skills:compose joins greet and old-greet (tag team): each is one use.
    expect(
      (await session.request("prompts/get", { name: "skills:compose", arguments: { tags: "team" } })).error,
    ).toBeUndefined();
    expect((await session.request("resources/read", { uri: "skill://retired-folder/SKILL.md" })).error).toBeUndefined();
    // An unknown name is not a skill: never recorded.
    expect((await session.request("prompts/get", { name: "nope" })).error).toBeDefined();
    expect(await session.close()).toBe(0);

    const report = await usageJson(fixture);
    const byId = Object.fromEntries(report.skills.map((s) => [s.id, s]));
    expect(byId.greet?.uses).toBe(2);
    expect(byId.echo?.uses).toBe(1);
    expect(byId["old-greet"]?.uses).toBe(1);
    expect(byId["retired-folder"]?.uses).toBe(1);
    expect(byId.nope).toBeUndefined();
    expect(byId.greet?.clients).toEqual({ "claude-code": 2 });
    expect(Number.isNaN(Date.parse(byId.greet!.lastUsed))).toBe(false);
    expect(Date.parse(report.since)).toBeLessThan(Date.now() - 29 * 86_400_000);
    // Served now, used by nobody in the window.
    expect(report.unused).toEqual(["old-echo"]);
    // --skill narrows both lists.
    const one = await usageJson(fixture, "--skill", "echo");
    expect(one.skills.map((s) => s.id)).toEqual(["echo"]);
    expect(one.unused).toEqual([]);
  });

  test("a call refused for its arguments is recorded as refused: not a use, counted apart in `usage`", async () => {
    fixture = makeFixture(SKILLS);
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    const bad = await session.request("tools/call", { name: "echo", arguments: { message: 5 } });
    expect(bad.result?.isError).toBe(true);
    await session.request("tools/call", { name: "echo", arguments: { message: "ok" } });
    expect(await session.close()).toBe(0);
    const [echo] = (await readUsage(storePath(fixture), { since: 0, skill: "echo" })).skills;
    expect(echo?.outcomes).toEqual({ ok: 1, refused: 1 });
    expect([echo?.uses, echo?.refused]).toEqual([1, 1]);
    const report = await usageJson(fixture, "--skill", "echo");
    expect(report.skills.map((s) => [s.id, s.uses, s.refused])).toEqual([["echo", 1, 1]]);
    const text = await runCli(["usage", "--no-builtin", "--skill", "echo"], fixture.cwd, fixture.home);
    expect(text.stdout).toMatch(/^echo\s+1\s+ok 1\s+1\s/m);
  });

  test("every project by default, each shown; --project . keeps this one's, --client one client's; rows from before projects say so", async () => {
    fixture = makeFixture(SKILLS);
    const here = folderProject(fixture.cwd);
    const db = openUsageDatabase(storePath(fixture), 0);
    const insert = db.prepare(
      "INSERT INTO uses (at, skill, layer, client, caller, project, outcome, via) VALUES (?, 'greet', 'project', ?, NULL, ?, 'ok', 'prompts/get')",
    );
    const now = Date.now();
    insert.run(now - 1000, "claude-code", here);
    insert.run(now - 2000, "claude-code", here);
    insert.run(now - 3000, "cursor-vscode", "dir:00000000000000ff");
    insert.run(now - 4000, "cursor-vscode", null);
    db.close();
    const all = (await usageJson(fixture)) as unknown as {
      thisProject: string;
      skills: { projects: Record<string, number> }[];
    };
    expect(all.thisProject).toBe(here);
    expect(all.skills[0]?.projects).toEqual({ [here]: 2, "dir:00000000000000ff": 1, [NO_PROJECT]: 1 });
    const mine = await usageJson(fixture, "--project", ".");
    expect(mine.skills.map((s) => [s.id, s.uses])).toEqual([["greet", 2]]);
    const other = await usageJson(fixture, "--project", "dir:00000000000000ff");
    expect(other.skills.map((s) => [s.id, s.uses])).toEqual([["greet", 1]]);
    const cursor = await usageJson(fixture, "--client", "cursor-vscode");
    expect(cursor.skills.map((s) => [s.id, s.uses, s.clients])).toEqual([["greet", 2, { "cursor-vscode": 2 }]]);
    const text = await runCli(["usage", "--no-builtin"], fixture.cwd, fixture.home);
    expect(text.stdout).toContain("this project 2, (none: before projects) 1, dir:00000000000000ff 1");
  });

  test("the text report has a row and a sparkline per skill, then the unused ones", async () => {
    fixture = makeFixture(SKILLS);
    const { session, ready } = server(fixture, "cursor-vscode");
    await ready;
    await session.request("prompts/get", { name: "greet" });
    expect(await session.close()).toBe(0);
    const run = await runCli(["usage", "--no-builtin", "--since", "7d"], fixture.cwd, fixture.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^greet\s+1\s+ok 1\s+0\s+0\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+cursor-vscode 1\s+this project 1\s+ *[▁▂▃▄▅▆▇█]+$/m,
    );
    expect(run.stdout).toContain("unused in the last 7 days (4): echo, old-echo, old-greet, retired-folder");
  });

  test("four server processes recording at once lose no use", async () => {
    fixture = makeFixture(SKILLS);
    const CALLS = 60;
    const servers = ["a", "b", "c", "d"].map((name) => server(fixture!, `client-${name}`));
    await Promise.all(servers.map((s) => s.ready));
    await Promise.all(
      servers.map(async ({ session }) => {
        for (let i = 0; i < CALLS; i++) {
          const answer = await session.request("tools/call", { name: "echo", arguments: { message: `m${i}` } });
          expect(answer.result?.isError).toBeUndefined();
        }
      }),
    );
    const codes = await Promise.all(servers.map(({ session }) => session.close()));
    expect(codes).toEqual([0, 0, 0, 0]);
    const report = await usageJson(fixture);
    const echo = report.skills.find((s) => s.id === "echo");
    // A lost use shows with the servers' own word on the store, if they said one.
    const said = servers.flatMap(({ session }) => session.stderr().split("\n")).filter((l) => l.includes("usage"));
    expect({ uses: echo?.uses, said }).toEqual({ uses: 4 * CALLS, said: [] });
    expect(echo?.clients).toEqual({ "client-a": CALLS, "client-b": CALLS, "client-c": CALLS, "client-d": CALLS });
  }, 120_000);

  test("no argument value or rendered text reaches the store's bytes", async () => {
    fixture = makeFixture(SKILLS);
    const SECRET = "argument-value-7f3c9a-never-stored";
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    const answer = await session.request("tools/call", { name: "echo", arguments: { message: SECRET } });
    expect(JSON.stringify(answer.result)).toContain(SECRET);
    await session.request("prompts/get", { name: "greet", arguments: { who: SECRET } });
    expect(await session.close()).toBe(0);
    const folder = join(fixture.home, ".local", "state", "skill-central");
    const files = readdirSync(folder);
    expect(files).toContain("usage.db");
    for (const name of files) {
      const bytes = readFileSync(join(folder, name));
      expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
      expect(bytes.includes(Buffer.from("echo: "))).toBe(false);
    }
    expect((await usageJson(fixture)).skills.find((s) => s.id === "echo")?.uses).toBe(1);
  });

  test("`usage: { store: off }` in the user's config records nothing and creates no file", async () => {
    fixture = makeFixture({ ...SKILLS, "~/.skill-central/config.yaml": "usage: { store: off }\n" });
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    await session.request("prompts/get", { name: "greet" });
    await session.request("tools/call", { name: "echo", arguments: { message: "x" } });
    expect(await session.close()).toBe(0);
    expect(existsSync(join(fixture.home, ".local", "state"))).toBe(false);
    const run = await runCli(["usage", "--no-builtin"], fixture.cwd, fixture.home);
    expect(run.stderr).toContain("usage recording is off");
  });

  test("a store path in the user's config is used, relative to the config file", async () => {
    fixture = makeFixture({
      ...SKILLS,
      "~/.skill-central/config.yaml": "usage: { store: ./state/uses.db, keepDays: 30 }\n",
    });
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    await session.request("prompts/get", { name: "greet" });
    expect(await session.close()).toBe(0);
    expect(existsSync(join(fixture.home, ".skill-central", "state", "uses.db"))).toBe(true);
    expect(existsSync(storePath(fixture))).toBe(false);
    expect((await usageJson(fixture)).skills.map((s) => s.id)).toEqual(["greet"]);
  });

  test("a store that cannot be opened means one warning and answers as usual", async () => {
    // The store's folder is a file: it can never be created.
    fixture = makeFixture({
      ...SKILLS,
      "~/blocked": "a file",
      "~/.skill-central/config.yaml": "usage: { store: ~/blocked/usage.db }\n",
    });
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    for (let i = 0; i < 3; i++) {
      const answer = await session.request("tools/call", { name: "echo", arguments: { message: "x" } });
      expect(answer.result?.isError).toBeUndefined();
    }
    expect(await session.close()).toBe(0);
    const warnings = session
      .stderr()
      .split("\n")
      .filter((l) => l.includes("usage: not recording"));
    expect(warnings).toHaveLength(1);
  });
});

describe("`usage` over a store that cannot be read", () => {
  for (const { kind, write, reason } of DAMAGE) {
    test(`${kind}: an empty report (text and --json), the reason on stderr naming the file, exit 0, the file untouched`, async () => {
      fixture = makeFixture(SKILLS);
      write(storePath(fixture));
      const before = readFileSync(storePath(fixture));
      const note = `usage store ~/.local/state/skill-central/usage.db cannot be read (${reason}): showing no history`;

      const text = await runCli(["usage", "--no-builtin"], fixture.cwd, fixture.home);
      expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 0, stdout: "" });
      expect(text.stderr.split("\n").filter((line) => line.includes("usage store"))).toEqual([note]);

      const run = await runCli(["usage", "--no-builtin", "--json"], fixture.cwd, fixture.home);
      expect(run.code).toBe(0);
      // No skill is called unused: a store that cannot be read says nothing about what was used.
      expect(JSON.parse(run.stdout)).toEqual({
        since: expect.any(String),
        thisProject: expect.stringMatching(/^dir:[0-9a-f]{16}$/),
        skills: [],
        unused: [],
        problem: note,
      });
      expect(run.stderr.split("\n").filter((line) => line.includes("usage store"))).toEqual([note]);

      // `validate` still runs (it looks for deprecated skills in use) and says nothing of them.
      const validate = await runCli(["validate", "--no-builtin"], fixture.cwd, fixture.home);
      expect(validate.stdout + validate.stderr).not.toContain("SQLite");
      expect(validate.stdout + validate.stderr).not.toContain("is still in use");
      expect(readFileSync(storePath(fixture)).equals(before)).toBe(true);
    });
  }
});

describe("lifecycle: deprecated and opt-in skills over MCP", () => {
  test("a deprecated skill's description leads with its message, and each use's result carries it once", async () => {
    fixture = makeFixture(SKILLS);
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    const prompts = (await session.request("prompts/list")).result?.prompts as { name: string; description: string }[];
    const old = prompts.find((p) => p.name === "old-greet");
    expect(old?.description).toBe("[Deprecated: use greet instead] Greet someone the old way, with a formal letter");
    expect(prompts.find((p) => p.name === "retired-folder")?.description).toStartWith(
      "[Deprecated: use review-pr instead] ",
    );
    expect(prompts.find((p) => p.name === "greet")?.description).not.toContain("Deprecated");

    const tools = (await session.request("tools/list")).result?.tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === "old-echo")?.description).toStartWith("[Deprecated: use echo instead]");

    const called = (await session.request("tools/call", { name: "old-echo", arguments: {} })).result as {
      content: { type: string; text: string }[];
      _meta?: Record<string, unknown>;
    };
    const notes = called.content.filter((c) => c.text.includes("use echo instead"));
    expect(notes).toEqual([{ type: "text", text: "Note: Deprecated: use echo instead" }]);
    expect(called._meta?.["dev.skill-central/deprecated"]).toEqual({ "old-echo": "Deprecated: use echo instead" });
    // A skill that is not deprecated gets nothing added.
    const plain = (await session.request("tools/call", { name: "echo", arguments: { message: "x" } })).result as {
      content: unknown[];
      _meta?: Record<string, unknown>;
    };
    expect(plain.content).toHaveLength(1);
    expect(plain._meta?.["dev.skill-central/deprecated"]).toBeUndefined();

    const got = (await session.request("prompts/get", { name: "old-greet" })).result as {
      description: string;
      messages: { content: { text: string } }[];
    };
    expect(got.description.match(/use greet instead/g)).toHaveLength(1);
    const composed = (await session.request("prompts/get", { name: "skills:compose", arguments: { tags: "team" } }))
      .result as { description: string; _meta?: Record<string, unknown> };
    expect(composed.description.match(/use greet instead/g)).toHaveLength(1);
    expect(composed._meta?.["dev.skill-central/deprecated"]).toEqual({ "old-greet": "Deprecated: use greet instead" });
    expect(await session.close()).toBe(0);
  });

  test("an opt-in skill is served only where a config's `enable` lists it", async () => {
    fixture = makeFixture(SKILLS);
    const listed = async () => {
      const { session, ready } = server(fixture!, "claude-code");
      await ready;
      const listed = (await session.request("prompts/list")).result as { prompts: { name: string }[] };
      const names = listed.prompts.map((p) => p.name);
      const get = await session.request("prompts/get", { name: "beta-deploy" });
      expect(await session.close()).toBe(0);
      return { names, found: get.error === undefined };
    };
    const before = await listed();
    expect(before.names).not.toContain("beta-deploy");
    expect(before.names).not.toContain("beta-folder");
    expect(before.found).toBe(false);

    fixture.write(
      "skill-central.yaml",
      "enable: [beta-deploy, beta-folder]\nlayers:\n  - { name: project, path: .skills, priority: 100 }\n",
    );
    const after = await listed();
    expect(after.names).toContain("beta-deploy");
    expect(after.names).toContain("beta-folder");
    expect(after.found).toBe(true);
  });

  test("`validate` names an `enable` entry that is no opt-in skill, and lists deprecated skills still in use", async () => {
    fixture = makeFixture({
      ...SKILLS,
      "skill-central.yaml": "enable: [beta-deplyo]\nlayers:\n  - { name: project, path: .skills, priority: 100 }\n",
    });
    const { session, ready } = server(fixture, "claude-code");
    await ready;
    await session.request("prompts/get", { name: "old-greet" });
    await session.request("prompts/get", { name: "old-greet" });
    expect(await session.close()).toBe(0);
    const run = await runCli(["validate", "--no-builtin"], fixture.cwd, fixture.home);
    expect(run.stdout + run.stderr).toContain('enable lists "beta-deplyo", which is not an opt-in skill of any layer');
    expect(run.stdout + run.stderr).toMatch(/deprecated skill "old-greet" is still in use: 2 uses in the last 30 days/);
    expect(run.stdout + run.stderr).not.toMatch(/deprecated skill "retired-folder" is still in use/);
  });
});
