import { afterEach, describe, expect, test } from "bun:test";
import { symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layersUnchanged, loadSkills, referencedVersions, type LoadResult } from "../../src/load/load-skills.ts";
import { StartupIndex } from "../../src/load/startup-index.ts";
import { folderFilesOf } from "../../src/registry/describe.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

/**
 * A warm start (the start-up index holds every file version) takes from a skill folder only its
 * own listing and its SKILL.md's and examples file's stamps: the folder's other files never make
 * a skill parse again, and are as they are on disk when first needed.
 */
const CONFIG = "builtin: false\nlayers:\n  - { name: skills, path: ./skills, priority: 10 }\n";
const SKILL_MD = "---\nname: x\ndescription: The x skill\n---\nDo it.\n";

let fixture: Fixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

/** Out of the racy window (files modified in the last two seconds are not indexed). */
function aged(path: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(fixture!.cwd, path), past, past);
}

/** A start with the index at `indexPath`, which then writes what it parsed, as the server's writer does when idle. */
async function start(indexPath: string): Promise<LoadResult & { parsed: number }> {
  const index = StartupIndex.open(indexPath)!;
  const result = await loadSkills({ cwd: fixture!.cwd, home: fixture!.home, index });
  expect(index.write(result.unindexed)).toBe(true);
  expect(index.saveListing(referencedVersions(result))).toBe(true);
  index.close();
  return { ...result, parsed: result.unindexed.length };
}

describe("a warm start of a skill folder", () => {
  test("parses nothing when only the folder's other files changed, and serves those files as they are now", async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/x/SKILL.md": SKILL_MD,
      "skills/x/examples.yaml": "- contains: [Do]\n",
      "skills/x/references/a.md": "a\n",
    });
    for (const path of ["skills/x/SKILL.md", "skills/x/examples.yaml"]) aged(path);
    const indexPath = join(fixture.home, "index.sqlite");
    expect((await start(indexPath)).parsed).toBe(1);
    writeFileSync(join(fixture.cwd, "skills/x/references/a.md"), "a, edited\n");
    writeFileSync(join(fixture.cwd, "skills/x/references/b.md"), "b\n");
    writeFileSync(join(fixture.cwd, "skills/x/notes.md"), "notes\n");
    const warm = await start(indexPath);
    expect(warm.parsed).toBe(0);
    const x = warm.registry.get("x")!;
    expect(x.skill.exampleCount).toBe(1);
    expect(folderFilesOf(x).map((f) => [f.path, f.size])).toEqual([
      ["SKILL.md", SKILL_MD.length],
      ["notes.md", 6],
      ["references/a.md", 10],
      ["references/b.md", 2],
    ]);
  });

  test("parses the skill again when its examples file was edited, added, doubled or removed", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG, "skills/x/SKILL.md": SKILL_MD });
    aged("skills/x/SKILL.md");
    const indexPath = join(fixture.home, "index.sqlite");
    const examplesAfter = async (change: () => void) => {
      change();
      const result = await start(indexPath);
      return [result.parsed, result.registry.get("x")!.skill.exampleCount];
    };
    expect((await start(indexPath)).parsed).toBe(1);
    expect(await examplesAfter(() => fixture!.write("skills/x/examples.yaml", "- contains: [Do]\n"))).toEqual([1, 1]);
    expect(
      await examplesAfter(() => fixture!.write("skills/x/examples.yaml", "- contains: [Do]\n- contains: [it]\n")),
    ).toEqual([1, 2]);
    expect(await examplesAfter(() => fixture!.write("skills/x/examples.yml", "- contains: [x]\n"))).toEqual([1, 2]);
    expect(await examplesAfter(() => fixture!.remove("skills/x/examples.yml"))).toEqual([1, 2]);
    expect(await examplesAfter(() => fixture!.remove("skills/x/examples.yaml"))).toEqual([1, 0]);
  });
});

describe("layersUnchanged: the check after the first load's deferred watches begin", () => {
  const YAML = "id: y\ndescription: A YAML skill\ntype: prompt\nprompt: Hello\n";
  async function loaded() {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/x/SKILL.md": SKILL_MD,
      "skills/x/notes.md": "notes\n",
      "skills/y.yaml": YAML,
    });
    return loadSkills({ cwd: fixture.cwd, home: fixture.home });
  }

  test("finds nothing when nothing changed, nor when a folder's files changed before any were worked out", async () => {
    const first = await loaded();
    expect(await layersUnchanged(first)).toBe(true);
    fixture!.write("skills/x/more.md", "more\n");
    expect(await layersUnchanged(first)).toBe(true);
  });

  test("finds a skill file edited, added or removed, an examples file added, and a worked-out folder's new file", async () => {
    const cases: [string, () => void, (result: LoadResult) => void][] = [
      ["edited", () => fixture!.write("skills/y.yaml", `${YAML}tags: [a]\n`), () => {}],
      ["added", () => fixture!.write("skills/z.yaml", YAML.replace("id: y", "id: z")), () => {}],
      ["removed", () => fixture!.remove("skills/y.yaml"), () => {}],
      ["SKILL.md edited", () => fixture!.write("skills/x/SKILL.md", `${SKILL_MD}More.\n`), () => {}],
      ["examples added", () => fixture!.write("skills/x/examples.yaml", "- contains: [Do]\n"), () => {}],
      [
        "a file of a folder whose files were given",
        () => fixture!.write("skills/x/more.md", "more\n"),
        (result) => folderFilesOf(result.registry.get("x")!),
      ],
    ];
    for (const [name, change, use] of cases) {
      const first = await loaded();
      use(first);
      change();
      expect([name, await layersUnchanged(first)]).toEqual([name, false]);
      fixture!.cleanup();
    }
  });

  test("finds a new problem discovery reports (a broken link in the layer)", async () => {
    const first = await loaded();
    symlinkSync(join(fixture!.cwd, "missing.yaml"), join(fixture!.cwd, "skills/broken.yaml"));
    expect(await layersUnchanged(first)).toBe(false);
  });
});
