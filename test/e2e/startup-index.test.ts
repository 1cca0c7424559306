import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, requestLine, SOURCE_TARGET } from "../helpers/server.ts";

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({
    ".skills/a.yaml": promptSkill("a", { description: "first version", prompt: "Body of a, {{who}}" }),
    ".skills/b.yaml": promptSkill("b"),
    ".skills/broken.yaml": "id: broken\ndescription: [half\n",
  });
  for (const name of ["a", "b", "broken"]) age(`.skills/${name}.yaml`);
});
afterAll(() => fixture.cleanup());

/** Files written a minute ago are outside the index's racy window, so they get indexed. */
function age(path: string): void {
  const when = new Date(Date.now() - 60_000);
  utimesSync(join(fixture.cwd, path), when, when);
}

const cacheDir = () => join(fixture.root, "xdg", "skill-central");
const indexFile = () => join(cacheDir(), readdirSync(cacheDir()).find((f) => f.endsWith(".index.sqlite"))!);

interface Session {
  descriptions: string[];
  rendered: string;
  stderr: string;
  /** How many files this start had to read and parse (from --debug-timing). */
  parsed: number;
}

/** One session with the index switched on (a checkout leaves it off): a list and a prompts/get. */
async function session(): Promise<Session> {
  const proc = Bun.spawn(
    [SOURCE_TARGET.command, ...SOURCE_TARGET.args, "--no-builtin", "--no-watch", "--debug-timing"],
    {
      cwd: fixture.cwd,
      env: {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
        SKILL_CENTRAL_CACHE: "on",
        XDG_CACHE_HOME: join(fixture.root, "xdg"),
      },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  proc.stdin.write(
    `${initializeLine(1)}\n${requestLine(2, "prompts/list")}\n${requestLine(3, "prompts/get", { name: "a", arguments: { who: "Ada" } })}\n`,
  );
  proc.stdin.end();
  const [out, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(await proc.exited).toBe(0);
  const messages = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const list = messages.find((m) => m.id === 2);
  const get = messages.find((m) => m.id === 3);
  return {
    descriptions: list.result.prompts
      .filter((p: { name: string }) => p.name !== "skills:compose")
      .map((p: { description: string }) => p.description),
    rendered: get.result?.messages[0].content.text ?? get.error.message,
    stderr,
    parsed: Number(/; (\d+) files parsed\)/.exec(stderr)?.[1] ?? Number.NaN),
  };
}

describe("the start-up index", () => {
  test("the first start parses every file and writes the index before it exits", async () => {
    const first = await session();
    expect(first.descriptions).toEqual(["first version", "The b skill"]);
    expect(first.rendered).toBe("Body of a, Ada");
    expect(first.parsed).toBe(3);
    expect(first.stderr).toMatch(/\.skills\/broken\.yaml:\d+:\d+: error: skipped: invalid YAML/);
    expect(readdirSync(cacheDir()).some((f) => f.endsWith(".index.sqlite"))).toBe(true);
  });

  test("the next start reads nothing: listings, findings and content come from the index", async () => {
    const next = await session();
    expect(next.parsed).toBe(0);
    expect(next.descriptions).toEqual(["first version", "The b skill"]);
    expect(next.rendered).toBe("Body of a, Ada");
    // A broken file's findings are indexed too: it is reported as before, without being read.
    expect(next.stderr).toMatch(/\.skills\/broken\.yaml:\d+:\d+: error: skipped: invalid YAML/);
  });

  test("an edited file is read again and served fresh; the others still come from the index", async () => {
    fixture.write(
      ".skills/a.yaml",
      promptSkill("a", { description: "second, longer version", prompt: "New body, {{who}}" }),
    );
    age(".skills/a.yaml");
    const edited = await session();
    expect(edited.parsed).toBe(1);
    expect(edited.descriptions).toEqual(["second, longer version", "The b skill"]);
    expect(edited.rendered).toBe("New body, Ada");
  });

  test("a file edited within the last two seconds is not indexed (its stamp could still hide a change)", async () => {
    fixture.write(".skills/b.yaml", promptSkill("b", { description: "just saved" }));
    expect((await session()).parsed).toBe(1);
    const again = await session();
    expect(again.parsed).toBe(1);
    expect(again.descriptions).toEqual(["second, longer version", "just saved"]);
    age(".skills/b.yaml");
  });

  test("an index written by another version (or format) is not used", async () => {
    await session();
    const db = new Database(indexFile());
    db.query("UPDATE meta SET value = 'other' WHERE key = 'stamp'").run();
    db.close();
    const after = await session();
    expect(after.parsed).toBe(3);
    expect(after.descriptions).toEqual(["second, longer version", "just saved"]);
  });

  test("a corrupt index file is started again from scratch, and the server answers as usual", async () => {
    writeFileSync(indexFile(), "this is not a database".repeat(100));
    const after = await session();
    expect(after.parsed).toBe(3);
    expect(after.rendered).toBe("New body, Ada");
    expect((await session()).parsed).toBe(0);
  });

  test("content missing from the index is read from the file when it is still the listed version", async () => {
    await session();
    const db = new Database(indexFile());
    db.query("DELETE FROM content").run();
    db.close();
    const after = await session();
    expect(after.parsed).toBe(0);
    expect(after.rendered).toBe("New body, Ada");
  });
});
