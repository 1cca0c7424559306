import { describe, expect, test } from "bun:test";
import { mergeChecksSettings, readChecksSettings } from "../../src/config/checks-settings.ts";
import type { ConfigProblem } from "../../src/config/config-problem.ts";
import type { LayerSpec } from "../../src/config/resolve-config.ts";
import type { Diagnostic } from "../../src/diagnostics.ts";
import type { SkillRecord } from "../../src/load/record.ts";
import { judgeFindings } from "../../src/commands/support/ownership.ts";
import { ownedLayer } from "../../src/config/owned-layer.ts";

const layer = (name: string, kind: "path" | "git" | "well-known", origin = "/p/skill-central.yaml"): LayerSpec => ({
  name,
  dir: `/layers/${name}`,
  priority: 10,
  origin,
  source:
    kind === "path"
      ? { kind, path: `/layers/${name}` }
      : kind === "git"
        ? { kind, url: "https://example.com/x.git", ref: "main", path: "" }
        : { kind, url: "https://example.com/.well-known/agent-skills/index.json" },
});
const LAYERS = [
  layer("builtin", "path", "built-in"),
  layer("vendor", "git"),
  layer("index", "well-known"),
  layer("team", "path"),
];
const record = (layerName: string, id: string, folder = true): SkillRecord =>
  ({
    path: folder ? `/layers/${layerName}/${id}/SKILL.md` : `/layers/${layerName}/${id}.yaml`,
    layer: { name: layerName, priority: 10, order: 0 },
    skill: { id, format: folder ? "skill-md" : "yaml" },
  }) as unknown as SkillRecord;
const RECORDS = [
  record("builtin", "review-pr", false),
  record("vendor", "claude-api"),
  record("index", "pdf"),
  record("team", "standup"),
];
const finding = (code: string, file: string, severity: Diagnostic["severity"] = "warning"): Diagnostic => ({
  severity,
  code,
  file,
  message: code,
});
const judge = (problems: Diagnostic[], ignore = [] as Parameters<typeof judgeFindings>[1]["ignore"], strict = false) =>
  judgeFindings(problems, { records: RECORDS, layers: LAYERS, ignore, strict });

describe("whose skills a check judges", () => {
  test("owned: a folder of this machine (the project's or the user's); not owned: built-in, git, url", () => {
    expect(LAYERS.map((l) => [l.name, ownedLayer(l)])).toEqual([
      ["builtin", false],
      ["vendor", false],
      ["index", false],
      ["team", true],
    ]);
  });

  test("form findings of skills not owned are notes, files of their folders included; the project's own keep their severity", () => {
    const { problems } = judge([
      finding("description-too-long", "/layers/vendor/claude-api/SKILL.md", "error"),
      finding("body-too-long", "/layers/index/pdf/SKILL.md"),
      finding("competing-skills", "/layers/builtin/review-pr.yaml"),
      finding("left-out-of-skill", "/layers/vendor/claude-api/.hidden/x.md"),
      finding("spec-description-length", "/layers/vendor/claude-api/SKILL.md", "error"),
      finding("vague-description", "/layers/team/standup/SKILL.md"),
      finding("description-too-long", "/layers/team/standup/SKILL.md", "error"),
    ]);
    expect(problems.map((d) => [d.code, d.severity])).toEqual([
      ["description-too-long", "note"],
      ["body-too-long", "note"],
      ["competing-skills", "note"],
      ["left-out-of-skill", "note"],
      ["spec-description-length", "note"],
      ["vague-description", "warning"],
      ["description-too-long", "error"],
    ]);
    expect(problems[0]!.message).toContain('(layer "vendor" is not this project\'s to fix)');
  });

  test("security, access and can't-be-served findings of skills not owned keep their severity", () => {
    const kept = [
      finding("audit-blocked", "/layers/vendor/claude-api/scripts/run.sh"),
      finding("git-copy-mismatch", "/layers/vendor/claude-api/SKILL.md", "error"),
      finding("yaml-syntax", "/layers/builtin/review-pr.yaml", "error"),
      finding("invalid-id", "/layers/index/pdf/SKILL.md", "error"),
    ];
    expect(judge(kept).problems).toEqual(kept);
  });
});

describe("checks.ignore", () => {
  const where = { file: "/p/skill-central.yaml", position: { line: 4, column: 7 } };
  test("an entry silences one rule for one skill, or for every skill of one layer, and counts what it silenced", () => {
    const bySkill = { rule: "vague-description", skill: "standup", reason: "known", ...where };
    const byLayer = { rule: "body-too-long", layer: "vendor", reason: "upstream", ...where };
    const { problems, silenced } = judge(
      [
        finding("vague-description", "/layers/team/standup/SKILL.md"),
        finding("vague-description", "/layers/index/pdf/SKILL.md"),
        finding("body-too-long", "/layers/vendor/claude-api/SKILL.md"),
      ],
      [bySkill, byLayer],
    );
    expect(problems.map((d) => [d.code, d.file])).toEqual([["vague-description", "/layers/index/pdf/SKILL.md"]]);
    expect(silenced).toEqual([
      { entry: bySkill, count: 1 },
      { entry: byLayer, count: 1 },
    ]);
  });

  test("an entry that silences nothing is a stale warning at its line; a --strict rule's only under --strict", () => {
    const stale = { rule: "unused-argument", skill: "standup", reason: "was there", ...where };
    const strictOnly = { rule: "spec-field", skill: "standup", reason: "x", ...where };
    const plain = judge([], [stale, strictOnly]).problems;
    expect(plain.map((d) => [d.code, d.severity, d.file, d.position])).toEqual([
      ["checks-ignore-stale", "warning", where.file, where.position],
    ]);
    expect(judge([], [stale, strictOnly], true).problems).toHaveLength(2);
  });

  test("an entry for a security or access rule is refused and silences nothing", () => {
    const blocked = finding("audit-blocked", "/layers/vendor/claude-api/SKILL.md");
    const { problems } = judge([blocked], [{ rule: "audit-blocked", layer: "vendor", reason: "trusted", ...where }]);
    expect(problems.map((d) => d.code)).toEqual(["audit-blocked", "checks-ignore-refused"]);
  });

  test("read from a config: a reason is required, and exactly one of skill or layer; the user's and the project's entries are joined", () => {
    const problems: ConfigProblem[] = [];
    const read = readChecksSettings(
      {
        ignore: [
          { rule: "vague-description", skill: "greet", reason: "ok" },
          { rule: "vague-description", skill: "greet" },
          { rule: "body-too-long", skill: "a", layer: "b", reason: "both" },
          { rule: "body-too-long", layer: "vendor", reason: " upstream " },
        ],
      },
      "/p/skill-central.yaml",
      (path) => ({ line: 10 + Number(path[2] ?? 0), column: 7 }),
      (p) => problems.push(p),
    );
    expect(read?.ignore).toEqual([
      {
        rule: "vague-description",
        skill: "greet",
        reason: "ok",
        file: "/p/skill-central.yaml",
        position: { line: 10, column: 7 },
      },
      {
        rule: "body-too-long",
        layer: "vendor",
        reason: "upstream",
        file: "/p/skill-central.yaml",
        position: { line: 13, column: 7 },
      },
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('needs "reason"'),
      expect.stringContaining("must name exactly one of skill or layer"),
    ]);
    const merged = mergeChecksSettings(read, { ignore: [read!.ignore![0]!] });
    expect(merged.ignore).toHaveLength(2);
    expect(mergeChecksSettings(undefined, undefined).ignore).toEqual([]);
  });
});
