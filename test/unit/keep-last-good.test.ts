import { afterEach, describe, expect, test } from "bun:test";
import { loadSkills } from "../../src/load/load-skills.ts";
import { loadReport } from "../../src/load/report.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

const CONFIG = (priority: number) =>
  `builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: ${priority} }\n`;

describe("a reload keeps the last good version of a file that broke", () => {
  test("a broken file that was good keeps serving its previous skill, with a warning naming file:line:col", async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG(10),
      "skills/a.yaml": promptSkill("a", { description: "good" }),
    });
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    fixture.write("skills/a.yaml", "id: a\ndescription: [half saved\n");
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: first });
    expect(second.registry.get("a")?.skill.description).toBe("good");
    expect(loadReport(second)).toEqual([
      expect.stringMatching(
        /^skills\/a\.yaml:\d+:\d+: warning: not reloaded, still serving its last good version: invalid YAML/,
      ),
    ]);
    // Still broken at the next reload: still the last good version.
    const third = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: second });
    expect(third.registry.get("a")?.skill.description).toBe("good");
  });

  test("without a previous load (startup, CLI) a broken file is skipped as before", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG(10), "skills/a.yaml": "id: a\ndescription: [half saved\n" });
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(result.registry.get("a")).toBeUndefined();
    expect(loadReport(result)[0]).toMatch(/error: skipped: invalid YAML/);
    expect(result.records.map((r) => r.outcome)).toEqual(["skipped"]);
  });

  test("a deleted file is gone, whatever the previous load had", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG(10), "skills/a.yaml": promptSkill("a") });
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    fixture.remove("skills/a.yaml");
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: first });
    expect(second.registry.resolutions()).toEqual([]);
  });

  test("a kept skill takes its layer's new priority when the config changed too", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG(10), "skills/a.yaml": promptSkill("a") });
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    fixture.write("skills/a.yaml", "id: a\ntype: prompt\n");
    fixture.write("skill-central.yaml", CONFIG(70));
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: first });
    expect(second.registry.get("a")?.layer.priority).toBe(70);
    expect(second.records[0]?.outcome).toBe("kept");
    expect(loadReport(second)[0]).toContain("warning: not reloaded, still serving its last good version: ");
  });

  test("a config file made invalid keeps its last good version: its layers keep serving, with a warning", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG(10), "skills/a.yaml": promptSkill("a") });
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    fixture.write("skill-central.yaml", "layers:\n  - { name: main, path: ./skills\n");
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: first });
    expect(second.registry.get("a")?.layer.name).toBe("main");
    expect(second.config.builtin).toBe(false);
    expect(loadReport(second)).toEqual([
      expect.stringMatching(
        /^skill-central\.yaml:\d+:\d+: warning: config not reloaded, still using its last good version: invalid YAML/,
      ),
    ]);
    // Fixed: its new contents apply.
    fixture.write("skill-central.yaml", CONFIG(70));
    const third = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: second });
    expect(third.registry.get("a")?.layer.priority).toBe(70);
    expect(loadReport(third)).toEqual([]);
  });

  test("without a last good version (a first start), an invalid config is an error and is ignored", async () => {
    fixture = makeFixture({ "skill-central.yaml": "layers: [\n", "skills/a.yaml": promptSkill("a") });
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home, builtin: false });
    expect(result.registry.resolutions()).toEqual([]);
    expect(loadReport(result)[0]).toMatch(/skill-central\.yaml:\d+:\d+: error: config ignored: invalid YAML/);
  });
});
