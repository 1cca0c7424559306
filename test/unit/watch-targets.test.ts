import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ResolvedConfig } from "../../src/config/resolve-config.ts";
import { watchPoints, watchTargets } from "../../src/reload/watch-targets.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

const layer = (dir: string) => ({
  name: dir,
  dir,
  priority: 1,
  origin: "test",
  source: { kind: "path" as const, path: dir },
});

describe("watchTargets", () => {
  test("every layer folder, the .skills fallback and every config file the config step could read", () => {
    const config: ResolvedConfig = {
      layers: [layer("/skills/team"), layer("/$bunfs/root/skills")],
      files: [],
      parsed: [],
      builtin: true,
    };
    expect(watchTargets(config, { cwd: "/p", home: "/h" })).toEqual([
      { path: "/skills/team", kind: "tree" },
      { path: "/p/.skills", kind: "tree" },
      { path: "/h/.skill-central/config.yaml", kind: "file" },
      { path: "/h/.skill-central/config.yml", kind: "file" },
      { path: "/p/skill-central.yaml", kind: "file" },
      { path: "/p/skill-central.yml", kind: "file" },
    ]);
  });
});

describe("watchPoints", () => {
  test("an existing folder is watched recursively, and its parent for the folder's own name", () => {
    fixture = makeFixture({ "team/a.yaml": "x" });
    const points = watchPoints([{ path: join(fixture.cwd, "team"), kind: "tree" }]);
    expect(points.map((p) => ({ dir: p.dir, recursive: p.recursive, names: p.names && [...p.names] }))).toEqual([
      { dir: join(fixture.cwd, "team"), recursive: true, names: undefined },
      { dir: fixture.cwd, recursive: false, names: ["team"] },
    ]);
  });

  test("a path that does not exist yet is watched from its nearest existing ancestor, for the next segment", () => {
    fixture = makeFixture();
    const points = watchPoints([
      { path: join(fixture.cwd, "later", "deep"), kind: "tree" },
      { path: join(fixture.cwd, "skill-central.yaml"), kind: "file" },
      { path: join(fixture.home, ".skill-central", "config.yaml"), kind: "file" },
    ]);
    expect(points.map((p) => ({ dir: p.dir, recursive: p.recursive, names: p.names && [...p.names].sort() }))).toEqual([
      { dir: fixture.cwd, recursive: false, names: ["later", "skill-central.yaml"] },
      { dir: fixture.home, recursive: false, names: [".skill-central"] },
    ]);
  });
});
