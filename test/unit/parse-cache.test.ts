import { afterEach, describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { ParseCache, parseCachePath } from "../../src/load/parse-cache.ts";
import { stampOf } from "../../src/storage/stamp.ts";
import type { FileOutcome } from "../../src/load/parse-file.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

const outcome = (file: string): FileOutcome => ({ file, ok: false, diagnostics: [{ severity: "error", code: "x", message: "m" }] });
const old = { size: 10, mtimeMs: Date.now() - 60_000 };

/** Makes a file look untouched for a minute, outside the racy window. */
function age(path: string, seconds = 60): void {
  const when = new Date(Date.now() - seconds * 1000);
  utimesSync(path, when, when);
}

describe("parse cache", () => {
  test("a stored outcome is returned for the same stamp and survives a save and reopen", async () => {
    fixture = makeFixture();
    const path = join(fixture.root, "cache", "c.json");
    const cache = await ParseCache.open(path);
    cache.set("/a.yaml", old, outcome("/a.yaml"));
    expect(cache.get("/a.yaml", old)).toEqual(outcome("/a.yaml"));
    await cache.save();
    const reopened = await ParseCache.open(path);
    expect(reopened.get("/a.yaml", old)).toEqual(outcome("/a.yaml"));
  });

  test("a different size or modification time is a miss", async () => {
    fixture = makeFixture();
    const cache = await ParseCache.open(join(fixture.root, "c.json"));
    cache.set("/a.yaml", old, outcome("/a.yaml"));
    expect(cache.get("/a.yaml", { ...old, size: 11 })).toBeUndefined();
    expect(cache.get("/a.yaml", { ...old, mtimeMs: old.mtimeMs + 1 })).toBeUndefined();
  });

  test("a file modified within the last two seconds is not cached (its stamp may not change on the next edit)", async () => {
    fixture = makeFixture();
    const cache = await ParseCache.open(join(fixture.root, "c.json"));
    const fresh = { size: 10, mtimeMs: Date.now() - 500 };
    cache.set("/a.yaml", fresh, outcome("/a.yaml"));
    expect(cache.get("/a.yaml", fresh)).toBeUndefined();
  });

  test("a corrupt cache file, or one from another version, is an empty cache", async () => {
    fixture = makeFixture({ "corrupt.json": "{not json", "other.json": JSON.stringify({ format: 1, version: "0.0.0-other", entries: { "/a.yaml": { ...old, outcome: outcome("/a.yaml") } } }) });
    expect((await ParseCache.open(join(fixture.cwd, "corrupt.json"))).get("/a.yaml", old)).toBeUndefined();
    expect((await ParseCache.open(join(fixture.cwd, "other.json"))).get("/a.yaml", old)).toBeUndefined();
  });

  test("the cache path is per project folder and honours XDG_CACHE_HOME", () => {
    expect(parseCachePath("/p/one", "/home/u")).not.toBe(parseCachePath("/p/two", "/home/u"));
    expect(parseCachePath("/p/one", "/home/u")).toStartWith("/home/u/.cache/skill-central/");
  });
});

describe("loading through the cache", () => {
  test("unchanged files come from the cache; an edited or new file is parsed again; a deleted one is dropped", async () => {
    fixture = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 1 }\n",
      "skills/a.yaml": promptSkill("a", { description: "first" }),
      "skills/b.yaml": promptSkill("b"),
    });
    age(join(fixture.cwd, "skills/a.yaml"));
    age(join(fixture.cwd, "skills/b.yaml"));
    const path = join(fixture.root, "cache.json");
    const cache = await ParseCache.open(path);
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home, parseCache: cache });
    expect(first.registry.get("a")?.skill.description).toBe("first");
    expect(cache.get(join(fixture.cwd, "skills/b.yaml"), (await stampOf(join(fixture.cwd, "skills/b.yaml")))!)).toBeDefined();

    // Not what the file says any more: proves the cached outcome is what gets served.
    fixture.write("skills/a.yaml", promptSkill("a", { description: "edited" }));
    fixture.write("skills/c.yaml", promptSkill("c"));
    fixture.remove("skills/b.yaml");
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, parseCache: cache });
    expect(second.registry.get("a")?.skill.description).toBe("edited");
    expect(second.registry.resolutions().map((r) => r.id)).toEqual(["a", "c"]);
    await cache.save();
    expect((await ParseCache.open(path)).get(join(fixture.cwd, "skills/b.yaml"), { size: 1, mtimeMs: 1 })).toBeUndefined();
  });

  test("a cached outcome is served for an unchanged stamp (the cache is really used)", async () => {
    fixture = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 1 }\n",
      "skills/a.yaml": promptSkill("a", { description: "on disk" }),
    });
    const file = join(fixture.cwd, "skills/a.yaml");
    age(file);
    const cache = await ParseCache.open(join(fixture.root, "cache.json"));
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home, parseCache: cache });
    const cached = first.registry.get("a")!.skill;
    cache.set(file, (await stampOf(file))!, { file, ok: true, skill: { ...cached, description: "from cache" }, diagnostics: [] });
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, parseCache: cache });
    expect(second.registry.get("a")?.skill.description).toBe("from cache");
  });
});
