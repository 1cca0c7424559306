import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { runExamples } from "../../src/examples/run.ts";
import { callTool } from "../../src/invoke/call-tool.ts";
import { allDiagnostics, loadSkills, type LoadResult } from "../../src/load/load-skills.ts";
import { agentSkillsSpecFindings } from "../../src/skill/skill-md/strict.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * The built-in skills are a product every team gets: each loads without a single finding,
 * carries inline examples that `skill-central test` runs and that pass, and holds nothing that
 * belongs to one company's stack.
 */

let fixture: Fixture;
let loaded: LoadResult;
beforeAll(async () => {
  fixture = makeFixture(); // an empty project: the built-in layer alone
  loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home, keepLocators: true });
});
afterAll(() => fixture.cleanup());

const SKILLS_DIR = join(REPO_ROOT, "skills");
const yamlFiles = () => readdirSync(SKILLS_DIR).filter((f) => f.endsWith(".yaml"));

describe("the built-in skills", () => {
  test("load without a single finding (validate --strict would pass)", () => {
    expect(loaded.records.filter((r) => r.path.endsWith(".yaml")).length).toBe(yamlFiles().length);
    expect(allDiagnostics(loaded)).toEqual([]);
  });

  test("every Agent Skills folder among them meets the agentskills.io specification exactly (what validate --strict checks in a user's layer)", () => {
    const folders = loaded.records.filter((r) => r.skill?.format === "skill-md");
    expect(folders.map((r) => r.skill!.id)).toContain("incident-postmortem");
    for (const record of folders) {
      const findings = agentSkillsSpecFindings({
        frontmatter: record.skill!.frontmatter!,
        folderName: basename(dirname(record.path)),
        body: record.content!.read().template ?? "",
      });
      expect({ id: record.skill!.id, findings }).toEqual({ id: record.skill!.id, findings: [] });
    }
  });

  test("every YAML one has inline examples, and every example passes", async () => {
    const served = loaded.registry.served().filter((c) => c.path.endsWith(".yaml"));
    expect(served.length).toBe(yamlFiles().length);
    expect(served.filter((c) => c.skill.exampleCount === 0).map((c) => c.skill.id)).toEqual([]);
    const results = await runExamples(loaded.registry, served);
    expect(results.length).toBeGreaterThanOrEqual(served.length);
    expect(results.filter((r) => !r.pass)).toEqual([]);
  });

  test("no single company's stack: no Kotlin Multiplatform or Android leftovers in any text or tag", () => {
    for (const file of yamlFiles()) {
      const text = readFileSync(join(SKILLS_DIR, file), "utf8");
      expect({
        file,
        leftovers: text.match(/\b(kmp|kotlin|multiplatform|android|jetpack|commonMain|ViewModel)\b/gi) ?? [],
      }).toEqual({ file, leftovers: [] });
    }
  });
});

describe("changelog-entry groups entries by kind", () => {
  test("sections come in Keep a Changelog's order, whatever the order of the input", async () => {
    const result = await callTool(loaded.registry, "changelog-entry", {
      version: "2.0.0",
      changes: {
        security: ["s"],
        fixed: ["f1", "f2"],
        removed: ["r"],
        deprecated: ["d"],
        changed: ["c"],
        added: ["a"],
      },
    });
    expect(result).toEqual({
      ok: true,
      text: "## [2.0.0]\n\n### Added\n\n- a\n\n### Changed\n\n- c\n\n### Deprecated\n\n- d\n\n### Removed\n\n- r\n\n### Fixed\n\n- f1\n- f2\n\n### Security\n\n- s",
    });
  });

  test("a kind with no entries has no heading; at least one kind is required", async () => {
    expect(
      await callTool(loaded.registry, "changelog-entry", {
        version: "1.0.1",
        date: "2026-01-02",
        changes: { fixed: ["x"] },
      }),
    ).toEqual({ ok: true, text: "## [1.0.1] - 2026-01-02\n\n### Fixed\n\n- x" });
    expect(await callTool(loaded.registry, "changelog-entry", { version: "1.0.1", changes: {} })).toEqual({
      ok: false,
      problems: ['Argument "changes" must have at least 1 property'],
    });
    expect(await callTool(loaded.registry, "changelog-entry", { version: "1.0.1", changes: { fixed: [] } })).toEqual({
      ok: false,
      problems: ['Argument "changes.fixed" must have at least 1 item'],
    });
  });
});

describe("commit-conventions asks for a lower-case summary without a final period", () => {
  test("a capital first letter, a final period or a second line is refused; lower-case passes", async () => {
    const call = (summary: string) => callTool(loaded.registry, "commit-conventions", { type: "fix", summary });
    expect(await call("handle empty input")).toEqual({ ok: true, text: "fix: handle empty input" });
    expect(await call("x")).toEqual({ ok: true, text: "fix: x" });
    for (const bad of ["Handle empty input", "handle empty input.", "handle\nempty input", " handle"]) {
      const result = await call(bad);
      expect({ bad, ok: result.ok }).toEqual({ bad, ok: false });
    }
    const tool = loaded.registry.get("commit-conventions")!.skill;
    expect(JSON.stringify(tool.inputSchema)).toContain("lower-case letter, no final period");
  });
});
