import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import type { FindingJson as Finding } from "../../src/commands/support/findings.ts";

/**
 * Issue 34's layer-access and new-user items that are about the CLI: what `validate`, `doctor`,
 * `publish` and `install` say and do (items 1, 2, 11, 15, 16).
 */

const prompt = (id: string, text: string, extra = "") =>
  `id: ${id}\ndescription: Write the ${id} text for a test of layer access\ntype: prompt\n${extra}prompt: '${text}'\n`;
const NESTED_CONFIG = [
  "builtin: false",
  "layers:",
  "  - { name: team, path: skills, priority: 10 }",
  "  - name: security",
  "    path: skills/security",
  "    priority: 40",
  "    visibleTo: { labels: [alice] }",
  "",
].join("\n");

let fixture: Fixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

describe("1. a layer inside another layer's folder", () => {
  test("validate and doctor say whose files they are, at the declaration; doctor counts each file once, in its own layer", async () => {
    fixture = makeFixture({
      "skill-central.yaml": NESTED_CONFIG,
      "skills/pub.yaml": prompt("pub", "public"),
      "skills/security/secret.yaml": prompt("secret", "secret"),
    });
    const validate = await runCli(["validate"], fixture.cwd, fixture.home);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe(
      'skill-central.yaml:5:11: note: layer "security" (restricted by visibleTo) is inside layer "team"\'s folder: its files (skills/security) belong to "security" alone, not to "team"\n',
    );
    const doctor = await runCliJson<{ layers: { name: string; files: number; served: number }[]; problems: Finding[] }>(
      ["doctor"],
      fixture.cwd,
      fixture.home,
    );
    expect(doctor.json.layers.map((l) => [l.name, l.files, l.served])).toEqual([
      ["team", 1, 1],
      ["security", 1, 1],
    ]);
    expect(doctor.json.problems.map((p) => [p.rule, p.severity, p.line])).toEqual([["layer-inside-layer", "note", 5]]);
  });

  test("two layers on one folder: validate fails with an error naming both; a layer folder inside a skill folder refuses that skill", async () => {
    fixture = makeFixture({
      "skill-central.yaml": [
        "builtin: false",
        "layers:",
        "  - { name: team, path: skills, priority: 10 }",
        "  - { name: security, path: skills/., priority: 40, visibleTo: { labels: [alice] } }",
        "  - { name: kit-secrets, path: other/kit/secrets, priority: 50, visibleTo: { labels: [alice] } }",
        "  - { name: other, path: other, priority: 20 }",
        "",
      ].join("\n"),
      "skills/pub.yaml": prompt("pub", "public"),
      "other/kit/SKILL.md": "---\nname: kit\ndescription: A kit\n---\nBody.\n",
      "other/kit/secrets/secret.yaml": prompt("secret", "secret"),
    });
    const { code, json } = await runCliJson<{ problems: Finding[] }>(["validate"], fixture.cwd, fixture.home);
    expect(code).toBe(1);
    const errors = json.problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => [p.file, p.rule, p.message])).toEqual([
      [
        "other/kit/SKILL.md",
        "layer-in-skill-folder",
        'this skill folder holds the folder of layer "kit-secrets", whose files belong to that layer alone; the skill is not loaded',
      ],
      [
        "skill-central.yaml",
        "layer-folder-shared",
        'layers "team" and "security" have the same folder (skills): a file belongs to exactly one layer, so neither is loaded',
      ],
    ]);
    const list = await runCliJson<{ id: string; layer: string }[]>(["list"], fixture.cwd, fixture.home);
    expect(list.json.map((s) => [s.id, s.layer])).toEqual([["secret", "kit-secrets"]]);
  });
});

describe("2. publish", () => {
  test("leaves out every layer with visibleTo and names it; --include-restricted publishes it; a re-publish without it removes its files", async () => {
    fixture = makeFixture({
      "skill-central.yaml": NESTED_CONFIG,
      "skills/pub.yaml": prompt("pub", "public"),
      "skills/shared.yaml": prompt("shared", "team copy"),
      "skills/security/secret.yaml": prompt("secret", "secret"),
      "skills/security/shared.yaml": prompt("shared", "security copy"),
    });
    const tree = join(fixture.cwd, "site/.well-known/agent-skills");
    const names = () =>
      (JSON.parse(readFileSync(join(tree, "index.json"), "utf8")) as { skills: { name: string }[] }).skills.map(
        (s) => s.name,
      );
    const first = await runCli(["publish", "site"], fixture.cwd, fixture.home);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'left out layer "security" (2 skills): it has visibleTo, and a static tree has no callers — --include-restricted publishes it\n',
    );
    expect(first.stdout).toStartWith("2 skills published");
    expect(names()).toEqual(["pub", "shared"]);
    expect(readFileSync(join(tree, "shared/SKILL.md"), "utf8")).toContain("team copy");
    expect(existsSync(join(tree, "secret"))).toBe(false);

    const all = await runCli(["publish", "site", "--include-restricted"], fixture.cwd, fixture.home);
    expect(all.stderr).not.toContain("left out");
    expect(names()).toEqual(["pub", "secret", "shared"]);
    expect(readFileSync(join(tree, "shared/SKILL.md"), "utf8")).toContain("security copy");

    const again = await runCliJson<{ skills: number; leftOutLayers: unknown }>(
      ["publish", "site"],
      fixture.cwd,
      fixture.home,
    );
    expect(again.json.leftOutLayers).toEqual([{ name: "security", skills: 2 }]);
    expect(names()).toEqual(["pub", "shared"]);
    expect(existsSync(join(tree, "secret/SKILL.md"))).toBe(false);
  });
});

describe("11. a config mistake that drops a whole layer", () => {
  for (const [what, config] of [
    ["priority: high", "layers:\n  - { name: team, path: skills, priority: high }\n"],
    ["a misspelt layers: key", "layer:\n  - { name: team, path: skills, priority: 10 }\n"],
    ["a misspelt path: key", "layers:\n  - { name: team, pth: skills, priority: 10 }\n"],
  ] as const) {
    test(`fails validate (exit 1) with an error: ${what}`, async () => {
      fixture = makeFixture({ "skill-central.yaml": `builtin: false\n${config}`, "skills/a.yaml": prompt("a", "a") });
      const { code, json } = await runCliJson<{ ok: boolean; problems: Finding[] }>(
        ["validate"],
        fixture.cwd,
        fixture.home,
      );
      expect(code).toBe(1);
      expect(json.ok).toBe(false);
      expect(json.problems.filter((p) => p.severity === "error").map((p) => [p.file, p.rule])).toEqual([
        ["skill-central.yaml", "config"],
      ]);
    });
  }

  test("an unknown key that drops nothing stays a warning", async () => {
    fixture = makeFixture({
      "skill-central.yaml": "builtin: false\nlayrs: []\nlayers:\n  - { name: team, path: skills, priority: 10 }\n",
      "skills/a.yaml": prompt("a", "a"),
    });
    expect((await runCli(["validate"], fixture.cwd, fixture.home)).code).toBe(0);
  });
});

describe("15. doctor and validate --strict agree", () => {
  test("every doctor finding is validate's, at file:line:col; a missing folder is named in the message, not put where a file belongs", async () => {
    fixture = makeFixture({
      "skill-central.yaml": [
        "builtin: false",
        "layers:",
        "  - { name: team, path: skills, priority: 10 }",
        "  - { name: gone, path: gone, priority: 5 }",
        "  - { name: empty, path: empty, priority: 6 }",
        "",
      ].join("\n"),
      "empty/_draft.yaml": "not: a skill\n",
      "skills/lonely.yaml": prompt("lonely", "alone", "tags: [solo]\n"),
      "skills/other.yaml": prompt("other", "another", "tags: [elsewhere]\n"),
    });
    const [validate, strict, doctor] = await Promise.all([
      runCliJson<{ problems: Finding[] }>(["validate"], fixture.cwd, fixture.home),
      runCli(["validate", "--strict"], fixture.cwd, fixture.home),
      runCliJson<{ problems: Finding[] }>(["doctor"], fixture.cwd, fixture.home),
    ]);
    expect(doctor.json.problems).toEqual(validate.json.problems);
    expect(doctor.json.problems.every((p) => p.line !== undefined && p.column !== undefined)).toBe(true);
    expect([validate.code, strict.code, doctor.code]).toEqual([0, 1, 0]);
    expect(strict.stdout).toBe(
      [
        'skill-central.yaml:4:25: warning: layer "gone": the folder gone does not exist, so it contributes no skills — create the folder, or fix the layer\'s path',
        'skill-central.yaml:5:26: warning: layer "empty": the folder empty has no skill files — add one with skill-central new <id> --type prompt --layer empty, or remove the layer',
        'skills/lonely.yaml:4:7: note: prompt "lonely": no other prompt skill has its tag (solo), so skills:compose with it returns only this skill — give a related prompt skill the same tag, or drop the tag',
        'skills/other.yaml:4:7: note: prompt "other": no other prompt skill has its tag (elsewhere), so skills:compose with it returns only this skill — give a related prompt skill the same tag, or drop the tag',
        "",
      ].join("\n"),
    );
  });
});

describe("16. install claude-code at one scope with our entry at the other", () => {
  test('--scope project mentions the user-scope entry and Claude Code\'s "Conflicting scopes"', async () => {
    fixture = makeFixture({
      "~/.claude.json": JSON.stringify({ mcpServers: { "skill-central": { command: "x", args: ["mcp"] } } }),
    });
    const run = await runCli(["install", "claude-code", "--scope", "project", "--dry-run"], fixture.cwd, fixture.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'note: ~/.claude.json also has a skill-central entry, at user scope: Claude Code will report "Conflicting scopes"',
    );
    const json = await runCliJson<{ clients: { note?: string }[] }>(
      ["install", "claude-code", "--scope", "project", "--dry-run"],
      fixture.cwd,
      fixture.home,
    );
    expect(json.json.clients[0]!.note).toContain("claude mcp remove --scope user skill-central");
  });

  test("without an entry at the other scope there is no note", async () => {
    fixture = makeFixture({ "~/.claude.json": "{}" });
    const run = await runCli(["install", "claude-code", "--scope", "project", "--dry-run"], fixture.cwd, fixture.home);
    expect(run.stdout).not.toContain("note:");
  });
});
