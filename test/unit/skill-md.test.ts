import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSkills } from "../../src/load/load-skills.ts";
import { folderFilesOf } from "../../src/registry/describe.ts";
import { publicationFingerprint, publishedHeads, publishedSkillOf } from "../../src/registry/published-skills.ts";
import { loadFiles } from "../../src/load/load-files.ts";
import { loadReport } from "../../src/load/report.ts";
import { agentSkillsSpecFindings, withStrictFindings } from "../../src/skill/skill-md/strict.ts";
import { quoteUnquotedColons, splitFrontmatter } from "../../src/skill/skill-md/frontmatter.ts";
import { FOLDER_LIMITS } from "../../src/storage/discover.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

const CONFIG = "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 10 }\n";

/** A SKILL.md with the given frontmatter lines and body. */
function skillMd(frontmatter: string, body = "Do the thing.\n"): string {
  return `---\n${frontmatter.trim()}\n---\n${body}`;
}
const basic = (name: string, extra = "") => skillMd(`name: ${name}\ndescription: The ${name} skill\n${extra}`);

async function load(files: Record<string, string>, config = CONFIG) {
  fixture = makeFixture({ "skill-central.yaml": config, ...files });
  const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
  const get = (id: string) => result.registry.get(id);
  return { ...result, get, ids: result.registry.resolutions().map((r) => r.id), lines: loadReport(result) };
}

describe("discovery: a folder holding SKILL.md is one skill", () => {
  test("SKILL.md folders and YAML files mix in one layer and resolve together", async () => {
    const { ids, lines } = await load({
      "skills/review/SKILL.md": basic("review"),
      "skills/nested/deeper/summarise/SKILL.md": basic("summarise"),
      "skills/plain.yaml": promptSkill("plain"),
    });
    expect(ids).toEqual(["plain", "review", "summarise"]);
    expect(lines).toEqual([]);
  });

  test("everything under a skill folder is its files: a .yaml in assets/ is an asset, a SKILL.md deeper down is a file", async () => {
    const { ids, get } = await load({
      "skills/pdf/SKILL.md": basic("pdf"),
      "skills/pdf/assets/form.yaml": promptSkill("not-a-skill"),
      "skills/pdf/scripts/extract.py": "print('hi')\n",
      "skills/pdf/inner/SKILL.md": basic("inner"),
    });
    expect(ids).toEqual(["pdf"]);
    expect(get("pdf")!.files!.walk().names).toEqual([
      "SKILL.md",
      "assets/form.yaml",
      "inner/SKILL.md",
      "scripts/extract.py",
    ]);
  });

  test("lower-case skill.md counts; SKILL.md wins where both exist", async () => {
    const { ids, get } = await load({
      "skills/a/skill.md": basic("a"),
      "skills/b/SKILL.md": basic("b"),
      "skills/b/skill.md": basic("b-lower"),
    });
    expect(ids).toEqual(["a", "b"]);
    expect(get("b")!.path).toEndWith(join("b", "SKILL.md"));
  });

  test("hidden and _ folders of a layer are ignored; inside a skill, _ names are part of it and only hidden names are left out, each listed", async () => {
    const { ids, get } = await load({
      "skills/_drafts/draft/SKILL.md": basic("draft"),
      "skills/.cache/x/SKILL.md": basic("x"),
      "skills/ok/SKILL.md": basic("ok"),
      "skills/ok/.DS_Store": "junk",
      "skills/ok/.git/HEAD": "ref: refs/heads/main\n",
      "skills/ok/_notes.md": "private",
      "skills/ok/scripts/__init__.py": "",
      "skills/ok/scripts/_helpers.py": "X = 1\n",
      "skills/ok/scripts/__pycache__/_helpers.cpython-312.pyc": "bytecode",
      "skills/ok/scripts/.venv/pyvenv.cfg": "home = /usr\n",
    });
    expect(ids).toEqual(["ok"]);
    const walked = get("ok")!.files!.walk();
    expect(walked.names).toEqual([
      "SKILL.md",
      "_notes.md",
      "scripts/__init__.py",
      "scripts/__pycache__/_helpers.cpython-312.pyc",
      "scripts/_helpers.py",
    ]);
    expect(walked.leftOut).toEqual([".DS_Store", ".git/", "scripts/.venv/"]);
  });

  test("overrides cross formats: a SKILL.md folder in a higher layer shadows a YAML skill with the same id, with provenance", async () => {
    const config =
      "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 10 }\n  - { name: mine, path: ./mine, priority: 20 }\n";
    const { registry } = await load(
      { "team/review.yaml": promptSkill("review"), "mine/review/SKILL.md": basic("review") },
      config,
    );
    const resolution = registry.resolutions().find((r) => r.id === "review")!;
    expect(
      resolution.chain.map((p) => [p.candidate.layer.name, p.candidate.skill.format ?? "yaml", p.status.kind]),
    ).toEqual([
      ["mine", "skill-md", "effective"],
      ["team", "yaml", "shadowed"],
    ]);
  });

  test("a YAML file and a skill folder with one id in one layer are a conflict, as two YAML files are", async () => {
    const { lines } = await load({
      "skills/review.yaml": promptSkill("review"),
      "skills/review/SKILL.md": basic("review"),
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^skills\/review\.yaml: error: id "review" is defined 2 times in layer "main" \(skills\/review\.yaml and skills\/review\/SKILL\.md\), so it is not served/,
      ),
    ]);
  });
});

describe("mapping: frontmatter onto a prompt skill", () => {
  test("name is the id, description the description (with when_to_use after it), the skill a prompt", async () => {
    const { get, lines } = await load({ "skills/x/SKILL.md": basic("x", "when_to_use: When the user asks for x.") });
    const skill = get("x")!.skill;
    expect(skill).toMatchObject({
      id: "x",
      type: "prompt",
      format: "skill-md",
      description: "The x skill\n\nWhen the user asks for x.",
    });
    expect(lines).toEqual([]);
  });

  test("Claude Code's fields are accepted silently and kept in the frontmatter", async () => {
    const fields = [
      "argument-hint: '[file]'",
      "disable-model-invocation: false",
      "user-invocable: true",
      "allowed-tools: Bash(git:*) Read",
      "model: sonnet",
      "effort: high",
      "context: fork",
      "agent: Explore",
      "license: MIT",
      "compatibility: Needs git",
      "paths: ['src/**']",
      "shell: bash",
    ].join("\n");
    const { get, lines } = await load({ "skills/x/SKILL.md": basic("x", fields) });
    expect(lines).toEqual([]);
    expect(get("x")!.skill.frontmatter).toMatchObject({
      model: "sonnet",
      "allowed-tools": "Bash(git:*) Read",
      license: "MIT",
    });
  });

  test("an unknown field is a warning naming its line and the field it resembles; the skill is served", async () => {
    const { ids, lines } = await load({ "skills/x/SKILL.md": basic("x", "descripton: typo") });
    expect(ids).toEqual(["x"]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^skills\/x\/SKILL\.md:4:1: warning: unknown frontmatter field "descripton".*did you mean "description"\?/,
      ),
    ]);
  });

  test("tags come from metadata.tags (space- or comma-separated) or a top-level tags list; metadata.version is the version", async () => {
    const { get } = await load({
      "skills/a/SKILL.md": basic("a", "metadata:\n  tags: review, security  Go\n  version: '1.2'"),
      "skills/b/SKILL.md": basic("b", "tags: [docs, writing]\nversion: 3"),
    });
    expect(get("a")!.skill).toMatchObject({ tags: ["review", "security", "go"], version: "1.2" });
    expect(get("b")!.skill).toMatchObject({ tags: ["docs", "writing"], version: "3" });
  });
});

describe("arguments", () => {
  test("without declared arguments: one optional free-text argument, described by argument-hint", async () => {
    const { get } = await load({
      "skills/a/SKILL.md": basic("a", "argument-hint: '[issue-number]'"),
      "skills/b/SKILL.md": basic("b"),
    });
    expect(get("a")!.skill.arguments).toEqual([{ name: "arguments", description: "[issue-number]", required: false }]);
    expect(get("b")!.skill.arguments).toEqual([
      { name: "arguments", description: "Free text, as typed after the command", required: false },
    ]);
  });

  test("arguments: a list or a space-separated string declares optional named arguments", async () => {
    const { get } = await load({
      "skills/a/SKILL.md": basic("a", "arguments: [file, focus]"),
      "skills/b/SKILL.md": basic("b", "arguments: file focus"),
    });
    for (const id of ["a", "b"]) {
      expect(get(id)!.skill.arguments).toEqual([
        { name: "file", required: false },
        { name: "focus", required: false },
      ]);
    }
  });

  test("an invalid or repeated argument name is an error at its line", async () => {
    const { ids, lines } = await load({
      "skills/a/SKILL.md": basic("a", "arguments: [ok, 9bad]"),
      "skills/b/SKILL.md": basic("b", "arguments: x x"),
    });
    expect(ids).toEqual([]);
    expect(lines[0]).toMatch(/^skills\/a\/SKILL\.md:4:\d+: error: skipped: argument name "9bad" is not valid/);
    expect(lines[1]).toMatch(/^skills\/b\/SKILL\.md:4:\d+: error: skipped: argument "x" is declared twice/);
  });
});

describe("visibility", () => {
  test("user-invocable: false hides the prompt from lists but it still resolves; disable-model-invocation is kept", async () => {
    const { get, registry } = await load({
      "skills/bg/SKILL.md": basic("bg", "user-invocable: false"),
      "skills/manual/SKILL.md": basic("manual", "disable-model-invocation: true"),
    });
    expect(get("bg")!.skill.hidden).toBe(true);
    expect(get("manual")!.skill.modelInvocable).toBe(false);
    expect(get("manual")!.skill.hidden).toBeUndefined();
    expect(registry.served().map((c) => c.skill.id)).toEqual(["bg", "manual"]);
  });

  test("a visibility flag that is not true/false is a warning and ignored", async () => {
    const { get, lines } = await load({ "skills/x/SKILL.md": basic("x", "user-invocable: nope") });
    expect(get("x")!.skill.hidden).toBeUndefined();
    expect(lines[0]).toMatch(/:4:\d+: warning: "user-invocable" must be true or false/);
  });
});

describe("validation: what stops a skill names file, line and column", () => {
  const cases: [string, string, RegExp][] = [
    ["no frontmatter", "# Just markdown\n", /SKILL\.md:1:1: error: skipped: SKILL\.md has no frontmatter/],
    [
      "frontmatter never closed",
      "---\nname: x\ndescription: y\n",
      /SKILL\.md:1:1: error: skipped: the frontmatter is never closed/,
    ],
    [
      "frontmatter not YAML",
      "---\nname: x\ndescription: [unclosed, list\nlicense: MIT\n---\nbody\n",
      /SKILL\.md:\d+:\d+: error: skipped: the frontmatter is not valid YAML/,
    ],
    [
      "a key twice in the frontmatter",
      "---\nname: x\ndescription: y\nname: z\n---\nbody\n",
      /SKILL\.md:4:1: error: skipped: .*"name".*twice|SKILL\.md:4:1: error: skipped: .*duplicate/,
    ],
    [
      "frontmatter not a mapping",
      "---\n- a\n- b\n---\nbody\n",
      /SKILL\.md:2:1: error: skipped: the frontmatter must be a mapping/,
    ],
    ["name missing", skillMd("description: y"), /SKILL\.md:2:1: error: skipped: "name" is missing/],
    ["name upper case", skillMd("name: Bad\ndescription: y"), /SKILL\.md:2:7: error: skipped: name "Bad" is not valid/],
    [
      "name with a leading hyphen",
      skillMd("name: -x\ndescription: y"),
      /SKILL\.md:2:7: error: skipped: name "-x" is not valid/,
    ],
    [
      "name with a double hyphen",
      skillMd("name: a--b\ndescription: y"),
      /SKILL\.md:2:7: error: skipped: name "a--b" is not valid/,
    ],
    [
      "name over 64 characters",
      skillMd(`name: ${"a".repeat(65)}\ndescription: y`),
      /SKILL\.md:2:7: error: skipped: name "a{65}" is not valid/,
    ],
    [
      "name not text",
      skillMd("name: 12\ndescription: y"),
      /SKILL\.md:2:7: error: skipped: "name" must be text, not a number/,
    ],
    ["description missing", skillMd("name: x"), /SKILL\.md:2:1: error: skipped: "description" is missing/],
    [
      "description empty",
      skillMd("name: x\ndescription: ''"),
      /SKILL\.md:3:14: error: skipped: "description" is empty/,
    ],
  ];
  for (const [what, text, expected] of cases) {
    test(what, async () => {
      const { ids, lines } = await load({ "skills/x/SKILL.md": text, "skills/ok/SKILL.md": basic("ok") });
      expect(ids).toEqual(["ok"]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(expected);
    });
  }

  test("a name of exactly 64 characters is fine", async () => {
    const name = "a".repeat(64);
    const { ids } = await load({ [`skills/${name}/SKILL.md`]: basic(name) });
    expect(ids).toEqual([name]);
  });
});

describe("validation: what is only a warning, the skill served", () => {
  test("an unquoted value holding ': ' (invalid YAML that Claude Code loads) is read as if quoted, with a warning at its line", async () => {
    const text =
      "---\nname: x\ndescription: Set it up: install the CLI, then run it.\nwhen_to_use: Ends with a colon:\nlicense: MIT\n---\nBody\n";
    const { get, lines } = await load({ "skills/x/SKILL.md": text });
    expect(get("x")!.skill.description).toBe("Set it up: install the CLI, then run it.\n\nEnds with a colon:");
    expect(lines).toEqual([
      expect.stringMatching(
        /^skills\/x\/SKILL\.md:3:14: warning: the value of "description" holds ": ".*read as if quoted — put it in quotes.*also: the value of "when_to_use"/,
      ),
    ]);
  });

  test("a description over 1,024 characters", async () => {
    const { ids, lines } = await load({ "skills/x/SKILL.md": skillMd(`name: x\ndescription: ${"d".repeat(1025)}`) });
    expect(ids).toEqual(["x"]);
    expect(lines).toEqual([
      expect.stringMatching(/SKILL\.md:3:14: warning: "description" is 1025 characters, over the specification's 1024/),
    ]);
  });

  test("a folder named unlike the skill: served under name", async () => {
    const { ids, lines } = await load({ "skills/folder/SKILL.md": basic("real-name") });
    expect(ids).toEqual(["real-name"]);
    expect(lines).toEqual([
      expect.stringMatching(
        /SKILL\.md:2:7: warning: name "real-name" differs from its folder "folder"; it is served as "real-name"/,
      ),
    ]);
  });

  test("a body over 500 lines, at the body's first line", async () => {
    const { ids, lines } = await load({
      "skills/x/SKILL.md": skillMd("name: x\ndescription: y", "line\n".repeat(501)),
    });
    expect(ids).toEqual(["x"]);
    expect(lines).toEqual([expect.stringMatching(/SKILL\.md:5:1: warning: the body is 501 lines, over the 500/)]);
  });

  test("!`command` in the body: served as written, and the warning says this server never runs it", async () => {
    const { ids, lines } = await load({
      "skills/x/SKILL.md": skillMd("name: x\ndescription: y", "Status:\n  see !`git status` here\n"),
    });
    expect(ids).toEqual(["x"]);
    expect(lines).toEqual([
      expect.stringMatching(
        /SKILL\.md:6:7: warning: !`git status` is served as written: this server never runs commands/,
      ),
    ]);
  });
});

describe("validate --strict: the agentskills.io rules exactly", () => {
  test("only the specification's six fields; name equals the folder; limits are errors; metadata maps text to text", () => {
    const findings = agentSkillsSpecFindings({
      frontmatter: {
        name: "x",
        description: "d".repeat(1025),
        "argument-hint": "[a]",
        compatibility: "c".repeat(501),
        metadata: { version: 1 },
        "allowed-tools": ["Read"],
        license: 3,
      },
      folderName: "y",
      body: "l\n".repeat(501),
    });
    expect(findings.map((d) => [d.severity, d.code])).toEqual([
      ["error", "spec-field"],
      ["error", "spec-name-folder"],
      ["error", "spec-description-length"],
      ["error", "spec-compatibility"],
      ["error", "spec-license"],
      ["error", "spec-allowed-tools"],
      ["error", "spec-metadata"],
      ["error", "spec-body-length"],
    ]);
    expect(findings[0]!.message).toBe('"argument-hint" is not a field of the Agent Skills specification');
  });

  test("a strict finding takes the place of the served finding that says the same, and only that one", () => {
    const file = "/p/x/SKILL.md";
    const at = (line: number, column: number) => ({ line, column });
    const served = [
      { severity: "warning" as const, code: "body-too-long", message: "long body", file, position: at(6, 1) },
      { severity: "warning" as const, code: "field-type", message: "metadata", file, position: at(5, 11) },
      { severity: "warning" as const, code: "field-type", message: "tags", file, position: at(8, 3) },
      { severity: "warning" as const, code: "body-too-long", message: "another file", file: "/p/y/SKILL.md" },
    ];
    const strict = [
      { severity: "error" as const, code: "spec-body-length", message: "spec body", file },
      { severity: "error" as const, code: "spec-metadata", message: "spec metadata", file, position: at(5, 11) },
    ];
    expect(withStrictFindings(served, strict).map((d) => [d.code, d.message, d.position?.line])).toEqual([
      ["field-type", "tags", 8],
      ["body-too-long", "another file", undefined],
      ["spec-body-length", "spec body", 6],
      ["spec-metadata", "spec metadata", 5],
    ]);
    expect(withStrictFindings(served, [])).toEqual(served);
  });

  test("a skill that follows the specification has no strict findings", () => {
    expect(
      agentSkillsSpecFindings({
        frontmatter: {
          name: "x",
          description: "d",
          license: "MIT",
          compatibility: "git",
          metadata: { version: "1" },
          "allowed-tools": "Read",
        },
        folderName: "x",
        body: "b\n",
      }),
    ).toEqual([]);
  });
});

describe("files: recorded with size and digest, never held in memory", () => {
  test("every regular file's relative path, size and sha256, SKILL.md first", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/x/SKILL.md": basic("x"),
      "skills/x/references/guide.md": "# Guide\n",
    });
    mkdirSync(join(fixture.cwd, "skills/x/assets"));
    writeFileSync(join(fixture.cwd, "skills/x/assets/logo.png"), png);
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    const files = folderFilesOf(result.registry.get("x")!);
    const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
    expect(files.map(({ path, size, sha256 }) => ({ path, size, sha256 }))).toEqual([
      { path: "SKILL.md", size: basic("x").length, sha256: sha(basic("x")) },
      { path: "assets/logo.png", size: 8, sha256: sha(png) },
      { path: "references/guide.md", size: 8, sha256: sha("# Guide\n") },
    ]);
  });

  test("links and special files are left out, with warnings from the folder's walk (made when its files are first needed); the skill is served without them", async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/x/SKILL.md": basic("x"),
      "secret.txt": "outside",
      "skills/x/ok.md": "ok",
    });
    symlinkSync(join(fixture.cwd, "secret.txt"), join(fixture.cwd, "skills/x/leak.txt"));
    symlinkSync(join(fixture.cwd, "skills"), join(fixture.cwd, "skills/x/up"));
    Bun.spawnSync(["mkfifo", join(fixture.cwd, "skills/x/pipe")]);
    const found: string[] = [];
    const result = await loadSkills({
      cwd: fixture.cwd,
      home: fixture.home,
      onFolderFindings: (skillFile, diagnostics) => found.push(skillFile, ...diagnostics.map((d) => d.message)),
    });
    // The start listed nothing below the folder: no finding yet.
    expect(loadReport(result)).toEqual([]);
    expect(found).toEqual([]);
    const walked = result.registry.get("x")!.files!.walk();
    expect(walked.names).toEqual(["SKILL.md", "ok.md"]);
    expect(folderFilesOf(result.registry.get("x")!).map((f) => f.path)).toEqual(["SKILL.md", "ok.md"]);
    expect(found[0]).toBe(join(fixture.cwd, "skills/x/SKILL.md"));
    expect(walked.diagnostics.map((d) => d.code).sort()).toEqual([
      "link-in-skill-folder",
      "link-in-skill-folder",
      "not-a-file",
    ]);
    const lines = found.join("\n");
    expect(lines).toContain("links are not followed inside a skill folder");
    expect(lines).toContain("not a regular file");
    expect(lines).not.toContain("outside");
  });

  test(`a folder over ${FOLDER_LIMITS.files} files: its files are refused when first needed (never at start), with a message naming the limit; its prompt stays`, async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/big/SKILL.md": basic("big"),
      "skills/ok/SKILL.md": basic("ok"),
    });
    mkdirSync(join(fixture.cwd, "skills/big/assets"));
    for (let i = 0; i < FOLDER_LIMITS.files; i++) writeFileSync(join(fixture.cwd, `skills/big/assets/${i}.txt`), "x");
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(result.registry.resolutions().map((r) => r.id)).toEqual(["big", "ok"]);
    expect(loadReport(result)).toEqual([]);
    const big = result.registry.get("big")!;
    const message = "skill folder over the limit of 512 files and 16 MiB: it holds more than 512 files";
    expect(big.files!.read()).toEqual({ refused: message });
    expect(big.files!.walk().diagnostics).toEqual([
      expect.objectContaining({ severity: "error", code: "skill-folder-too-large", message }),
    ]);
    expect(publishedSkillOf(big)).toBeUndefined();
    expect(publishedSkillOf(result.registry.get("ok")!)).toBeDefined();
  });

  test("a folder over 16 MiB: its files are refused when their sizes are first needed (never at start), so it is not published", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG, "skills/big/SKILL.md": basic("big") });
    writeFileSync(join(fixture.cwd, "skills/big/blob.bin"), new Uint8Array(FOLDER_LIMITS.bytes));
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    const big = result.registry.get("big")!;
    expect(big.files!.known).toBe(false);
    expect(big.files!.read()).toEqual({ refused: "skill folder over the limit of 16 MiB: it holds 16.0 MiB" });
    expect(publishedSkillOf(big)).toBeUndefined();
    expect(folderFilesOf(big)).toEqual([]);
  });

  test("a load names a folder's files without reading them: their digests are of the bytes on disk when first asked for", async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/x/SKILL.md": basic("x"),
      "skills/x/notes.md": "v1\n",
    });
    const result = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    const x = result.registry.get("x")!;
    // Listing resources, or comparing snapshots after a reload, works nothing out.
    expect(publishedHeads(result.registry)).toEqual([
      { uri: "skill://x/SKILL.md", name: "x", description: "The x skill" },
    ]);
    publicationFingerprint(result.registry);
    expect(x.files!.known).toBe(false);
    writeFileSync(join(fixture.cwd, "skills/x/notes.md"), "version 2\n");
    const sha = (data: string) => createHash("sha256").update(data).digest("hex");
    expect(folderFilesOf(x)[1]).toEqual({ path: "notes.md", size: 10, sha256: sha("version 2\n") });
    expect(x.files!.known).toBe(true);
    // Given once, the answer stays for this load; a reload that finds the file changed makes a new one.
    writeFileSync(join(fixture.cwd, "skills/x/notes.md"), "version three\n");
    expect(folderFilesOf(x)[1]!.sha256).toBe(sha("version 2\n"));
    const again = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: result });
    expect(again.registry.get("x")!.skill).toBe(x.skill);
    expect(folderFilesOf(again.registry.get("x")!)[1]!.sha256).toBe(sha("version three\n"));
  });
});

describe("examples beside SKILL.md", () => {
  test("examples.yaml holds the folder's examples (a list, or a mapping with examples:) and is test-only: not among the skill's files", async () => {
    const { get } = await load({
      "skills/a/SKILL.md": basic("a"),
      "skills/a/examples.yaml": "- arguments: { arguments: hi }\n  contains: [hi]\n",
      "skills/a/references/examples.yaml": "a reference, not the examples\n",
      "skills/b/SKILL.md": basic("b"),
      "skills/b/examples.yml": "examples:\n  - contains: [Do]\n",
    });
    expect(get("a")!.skill.exampleCount).toBe(1);
    expect(get("a")!.content.read().examples).toEqual([{ arguments: { arguments: "hi" }, contains: ["hi"] }]);
    expect(get("a")!.files!.walk().names).toEqual(["SKILL.md", "references/examples.yaml"]);
    expect(get("a")!.skill.examplesFile?.path).toBe("examples.yaml");
    expect(get("b")!.skill.exampleCount).toBe(1);
    expect(get("b")!.files!.walk().names).toEqual(["SKILL.md"]);
  });

  test("with both examples.yaml and examples.yml, the first is read and the second stays a file of the skill, with a warning", async () => {
    const { get, lines } = await load({
      "skills/a/SKILL.md": basic("a"),
      "skills/a/examples.yaml": "- contains: [Do]\n",
      "skills/a/examples.yml": "- contains: [x]\n",
    });
    expect(get("a")!.files!.walk().names).toEqual(["SKILL.md", "examples.yml"]);
    expect(lines).toEqual([
      expect.stringMatching(/^skills\/a\/examples\.yml: warning: not read: examples\.yaml holds the examples/),
    ]);
  });

  test("editing examples.yaml reloads the skill's examples, though the file is not published", async () => {
    fixture = makeFixture({
      "skill-central.yaml": CONFIG,
      "skills/a/SKILL.md": basic("a"),
      "skills/a/examples.yaml": "- contains: [Do]\n",
    });
    const first = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(first.registry.get("a")!.skill.exampleCount).toBe(1);
    // Another size: a new version whatever the clock's resolution.
    writeFileSync(join(fixture.cwd, "skills/a/examples.yaml"), "- contains: [Do]\n- contains: [thing]\n");
    const second = await loadSkills({ cwd: fixture.cwd, home: fixture.home, previous: first });
    expect(second.registry.get("a")!.skill.exampleCount).toBe(2);
    expect(second.registry.get("a")!.files!.walk().names).toEqual(["SKILL.md"]);
  });

  test("a broken examples file stops the skill, as a broken example in a YAML skill does, at the example's line", async () => {
    const { ids, lines } = await load({
      "skills/a/SKILL.md": basic("a"),
      "skills/a/examples.yaml": "- contains: [ok]\n- contains: nope\n",
      "skills/b/SKILL.md": basic("b"),
      "skills/b/examples.yaml": "- [\n",
    });
    expect(ids).toEqual([]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^skills\/a\/examples\.yaml:2:13: error: skipped: "contains" of example 2 must be a list of text/,
      ),
      expect.stringMatching(/^skills\/b\/examples\.yaml:\d+:\d+: error: skipped: invalid YAML/),
    ]);
  });
});

describe("validate <paths>: a skill folder or its SKILL.md", () => {
  test("both name the folder's skill", () => {
    fixture = makeFixture({ "skills/x/SKILL.md": basic("x"), "skills/x/references/r.md": "r" });
    for (const path of ["skills/x", "skills/x/SKILL.md"]) {
      const result = loadFiles([path], fixture.cwd);
      expect(result.candidates.map((c) => [c.skill.id, c.files?.walk().names.length])).toEqual([["x", 2]]);
    }
  });
});

describe("splitting SKILL.md", () => {
  test("the body is everything after the closing ---, byte for byte, with its first line number", () => {
    const split = splitFrontmatter("---\r\nname: x\r\ndescription: y\r\n---\r\n\r\nBody {{x}}\r\n");
    expect(split).toEqual({
      ok: true,
      yaml: "name: x\r\ndescription: y\r\n",
      yamlLine: 2,
      body: "\r\nBody {{x}}\r\n",
      bodyLine: 5,
    });
  });

  test("a byte-order mark before the opening --- is allowed", () => {
    expect(splitFrontmatter("\ufeff---\nname: x\n---\nb").ok).toBe(true);
  });

  test("an empty body", () => {
    expect(splitFrontmatter("---\nname: x\n---")).toMatchObject({ ok: true, body: "" });
  });
});

describe("quoting unquoted colons", () => {
  test("only top-level plain values holding ': ' or ending in ':' are quoted; line count and line endings kept", () => {
    const yaml =
      "name: x\r\ndescription: A: b \"c\"\r\nquoted: 'a: b'\nlist: [a: b]\nblock: |\n  a: b\nmetadata:\n  note: a: b\ncomment: a: b # why\ntrail: Note:\n";
    expect(quoteUnquotedColons(yaml)).toEqual({
      yaml: 'name: x\r\ndescription: "A: b \\"c\\""\r\nquoted: \'a: b\'\nlist: [a: b]\nblock: |\n  a: b\nmetadata:\n  note: a: b\ncomment: a: b # why\ntrail: "Note:"\n',
      quoted: [
        { key: "description", line: 2 },
        { key: "trail", line: 10 },
      ],
    });
  });

  test("nothing to quote: undefined", () => {
    expect(quoteUnquotedColons("name: x\ndescription: plain\n")).toBeUndefined();
  });
});
