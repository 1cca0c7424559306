import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, requestLine, SOURCE_TARGET } from "../helpers/server.ts";

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({ ".skills/a.yaml": promptSkill("a", { description: "first version" }) });
});
afterAll(() => fixture.cleanup());

/** Files written a minute ago are outside the cache's racy window, so they get cached. */
function age(path: string): void {
  const when = new Date(Date.now() - 60_000);
  utimesSync(join(fixture.cwd, path), when, when);
}

/** One session with the cache switched on (a checkout leaves it off), answering prompts/list. */
async function listDescriptions(): Promise<string[]> {
  const proc = Bun.spawn([SOURCE_TARGET.command, ...SOURCE_TARGET.args, "--no-builtin", "--no-watch"], {
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: process.env.PATH ?? "", SKILL_CENTRAL_CACHE: "on", XDG_CACHE_HOME: join(fixture.root, "xdg") },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  proc.stdin.write(`${initializeLine(1)}\n${requestLine(2, "prompts/list")}\n`);
  proc.stdin.end();
  const lines = (await new Response(proc.stdout).text()).trim().split("\n");
  expect(await proc.exited).toBe(0);
  const list = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
  return list.result.prompts.filter((p: { name: string }) => p.name !== "skills:compose").map((p: { description: string }) => p.description);
}

test("mcp mode writes the parse cache on exit, and an edited file is served fresh on the next start", async () => {
  age(".skills/a.yaml");
  expect(await listDescriptions()).toEqual(["first version"]);
  const dir = join(fixture.root, "xdg", "skill-central");
  expect(existsSync(dir) && readdirSync(dir).some((f) => f.endsWith(".json"))).toBe(true);
  fixture.write(".skills/a.yaml", promptSkill("a", { description: "second, longer version" }));
  age(".skills/a.yaml");
  expect(await listDescriptions()).toEqual(["second, longer version"]);
});
