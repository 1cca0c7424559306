import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSkills } from "../../src/api.ts";
import type { SkillView } from "../../src/registry/describe.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, SOURCE_TARGET, type Connected } from "../helpers/server.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import { eventually, ListChanges, textOf } from "./live-session.ts";

/**
 * A team's skills as they are found in the field: a YAML layer and a project layer mixing YAML
 * files and Agent Skills folders, with scripts, references, a binary asset, a price table,
 * literal `{{…}}`, a `!`command``, a skill only the model invokes and one only people invoke.
 */
const PDF_BODY = `# PDF tools

Run \`python \${CLAUDE_SKILL_DIR}/scripts/extract.py <file>\` to pull the text out.
Forms are described in [references/forms.md](references/forms.md).

| Plan | Price |
|------|-------|
| Basic | $10.00 |
| Pro | $5.00 per seat, $1,000 a year |

Template fields look like {{field_name}} and {{#each rows}}…{{/each}}; fill them by hand.
`;
const PDF = `---
name: pdf-tools
description: "Extract text and fill forms in PDF files. Use when the user mentions PDFs: forms, text or tables."
license: Apache-2.0
allowed-tools: Bash(python:*) Read
metadata:
  tags: documents, pdf
  version: "2.1"
---
${PDF_BODY}`;
const DEPLOY_BODY = "Deploy $ARGUMENTS.\nEnvironment: $0 (flags: $1)\nCurrent state: !`git status --short`\n";
const DEPLOY = `---
name: deploy
description: Deploy the service to an environment
argument-hint: <environment> [flags]
disable-model-invocation: true
---
${DEPLOY_BODY}`;
const BACKGROUND =
  "---\nname: house-style\ndescription: The team's writing style, for the model to apply\nuser-invocable: false\n---\nWrite short sentences.\n";
const REVIEW_MD =
  "---\nname: review\ndescription: Review a file with a focus\narguments: [file, focus]\n---\nReview $file, focusing on $focus.\n";
const FILES: Record<string, string> = {
  "skill-central.yaml":
    "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n",
  "team/review.yaml":
    "id: review\ndescription: Team review\ntype: prompt\narguments:\n  - { name: file, required: true }\nprompt: 'Team review of {{file}}'\n",
  "team/pdf-tools/SKILL.md": PDF,
  "team/pdf-tools/scripts/extract.py": "import sys\nprint(open(sys.argv[1], 'rb').read()[:10])\n",
  "team/pdf-tools/references/forms.md": "# Forms\n\nA field is written {{name}}.\n",
  "team/pdf-tools/examples.yaml": '- contains: ["$10.00", "{{field_name}}"]\n',
  "team/deploy/SKILL.md": DEPLOY,
  "team/house-style/SKILL.md": BACKGROUND,
  "team/notes/SKILL.md": "---\nname: notes\ndescription: Notes as a folder\n---\nFolder notes\n",
  ".skills/review/SKILL.md": REVIEW_MD,
  ".skills/notes.yaml": "id: notes\ndescription: Notes in YAML\ntype: prompt\nprompt: YAML notes\n",
};
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0xfe]);

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
  mkdirSync(join(fixture.cwd, "team/pdf-tools/assets"));
  writeFileSync(join(fixture.cwd, "team/pdf-tools/assets/logo.png"), LOGO);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);
const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("over stdio, with the SDK's client", () => {
  let session: Connected;
  let client: Client;
  beforeAll(async () => {
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    client = session.client;
  });
  afterAll(() => session?.close());

  test("folders and YAML files are prompts side by side; user-invocable: false is not listed", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["deploy", "notes", "pdf-tools", "review", "skills:compose"]);
    expect(prompts.find((p) => p.name === "deploy")!.arguments).toEqual([
      { name: "arguments", description: "<environment> [flags]", required: false },
    ]);
    expect(prompts.find((p) => p.name === "review")!.arguments).toEqual([
      { name: "file", required: false },
      { name: "focus", required: false },
    ]);
  });

  test("overrides cross formats: the project's folder beats the team's YAML, the project's YAML beats the team's folder", async () => {
    expect(textOf(await client.getPrompt({ name: "review", arguments: { file: "a.ts", focus: "errors" } }))).toBe(
      "Review a.ts, focusing on errors.\n",
    );
    expect(textOf(await client.getPrompt({ name: "notes" }))).toBe("YAML notes");
  });

  test("rendered without arguments, a body comes back byte for byte: prices, {{literals}} and all, apart from ${CLAUDE_SKILL_DIR}", async () => {
    const text = textOf(await client.getPrompt({ name: "pdf-tools" }));
    expect(text).toBe(PDF_BODY.replace("${CLAUDE_SKILL_DIR}", join(fixture.cwd, "team/pdf-tools")));
    expect(textOf(await client.getPrompt({ name: "deploy" }))).toBe(DEPLOY_BODY);
  });

  test("with arguments: $ARGUMENTS and $N are substituted; !`command` stays as written and is never run", async () => {
    const text = textOf(
      await client.getPrompt({ name: "deploy", arguments: { arguments: 'staging "--force --quiet"' } }),
    );
    expect(text).toBe(
      'Deploy staging "--force --quiet".\nEnvironment: staging (flags: --force --quiet)\nCurrent state: !`git status --short`\n',
    );
  });

  test("a body that never reads its arguments gets them appended", async () => {
    expect(textOf(await client.getPrompt({ name: "pdf-tools", arguments: { arguments: "report.pdf" } }))).toEndWith(
      "fill them by hand.\n\nARGUMENTS: report.pdf",
    );
  });

  test("a skill hidden from the list still resolves by name", async () => {
    expect(textOf(await client.getPrompt({ name: "house-style" }))).toBe("Write short sentences.\n");
  });

  test("the log names the !`command` warning's file, line and column; nothing is an error", () => {
    const log = session.stderr();
    expect(log).toMatch(
      /team\/deploy\/SKILL\.md:9:16: warning: !`git status --short` is served as written: this server never runs commands/,
    );
    expect(log).not.toMatch(/: error: /);
  });
});

describe("the CLI on skill folders", () => {
  test("list shows them with their layer; --json says their format", async () => {
    const { code, stdout } = await cli("list");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^pdf-tools\s+prompt\s+team\s+50\s+documents,pdf\s+Extract text/m);
    expect(stdout).toMatch(/^house-style\s+prompt\s+team/m);
    const json = await runCliJson<SkillView[]>(["list"], fixture.cwd, fixture.home);
    expect(Object.fromEntries(json.json.map((s) => [s.id, s.format]))).toEqual({
      deploy: "skill-md",
      "house-style": "skill-md",
      notes: "yaml",
      "pdf-tools": "skill-md",
      review: "skill-md",
    });
  });

  test("show lists the folder's files with size and digest, and the provenance across formats", async () => {
    const { code, stdout } = await cli("show", "pdf-tools");
    expect(code).toBe(0);
    expect(stdout).toContain("Agent Skills folder (SKILL.md)");
    expect(stdout).toMatch(new RegExp(`assets/logo\\.png\\s+14\\s+${sha256(LOGO).slice(0, 16)}`));
    expect(stdout).toMatch(/references\/forms\.md\s+\d+\s+[0-9a-f]{16}/);
    const json = await runCliJson<{ skill: SkillView }>(["show", "pdf-tools"], fixture.cwd, fixture.home);
    expect(json.json.skill.files).toEqual([
      { path: "SKILL.md", size: Buffer.byteLength(PDF), sha256: sha256(PDF), uri: "skill://pdf-tools/SKILL.md" },
      { path: "assets/logo.png", size: LOGO.length, sha256: sha256(LOGO), uri: "skill://pdf-tools/assets/logo.png" },
      {
        path: "references/forms.md",
        size: expect.any(Number),
        sha256: expect.any(String),
        uri: "skill://pdf-tools/references/forms.md",
      },
      {
        path: "scripts/extract.py",
        size: expect.any(Number),
        sha256: expect.any(String),
        uri: "skill://pdf-tools/scripts/extract.py",
      },
    ]);
    expect([json.json.skill.uri, json.json.skill.digest]).toEqual([
      "skill://pdf-tools/SKILL.md",
      `sha256:${sha256(PDF)}`,
    ]);
    expect(json.json.skill.examplesFile).toBe("examples.yaml");
    const review = await cli("show", "review");
    expect(review.stdout).toMatch(/project\s+100\s+\.skills\/review\/SKILL\.md\s+effective/);
    expect(review.stdout).toMatch(/team\s+50\s+team\/review\.yaml\s+shadowed/);
    const hidden = await cli("show", "house-style");
    expect(hidden.stdout).toContain("no (user-invocable: false)");
    expect((await cli("show", "deploy")).stdout).toContain("never offered to a model");
  });

  test("render takes the free text as --arg arguments=…", async () => {
    const { code, stdout } = await cli("render", "deploy", "--arg", "arguments=prod --now");
    expect(code).toBe(0);
    expect(stdout).toBe("Deploy prod --now.\nEnvironment: prod (flags: --now)\nCurrent state: !`git status --short`\n");
  });

  test("validate passes with the warning; --strict holds folders to the agentskills.io rules", async () => {
    const plain = await cli("validate");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("team/deploy/SKILL.md:9:16: warning:");
    const strict = await cli("validate", "--strict");
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(
      /team\/deploy\/SKILL\.md:4:1: error: "argument-hint" is not a field of the Agent Skills specification/,
    );
    expect(strict.stdout).toMatch(/\.skills\/review\/SKILL\.md:4:1: error: "arguments" is not a field/);
    // pdf-tools follows the specification: at most a note (its tags compose with nothing here), never a fault.
    expect(strict.stdout).not.toMatch(/pdf-tools\/SKILL\.md:\d+:\d+: (error|warning)/);
  });

  test("test runs a folder's examples.yaml", async () => {
    const { code, stdout, stderr } = await cli("test", "pdf-tools");
    expect(code).toBe(0);
    expect(`${stdout}${stderr}`).toMatch(/1 passed/);
  });

  test("doctor is happy with folders", async () => {
    const { code } = await cli("doctor");
    expect(code).toBe(0);
  });
});

describe("convert", () => {
  test("a folder to YAML, saying what YAML cannot carry; the new file renders the same", async () => {
    const out = join(fixture.root, "converted");
    const { code, stdout } = await cli("convert", "pdf-tools", "--to", "yaml", "--out", out);
    expect(code).toBe(0);
    expect(stdout).toContain("${CLAUDE_SKILL_DIR} has no YAML form");
    expect(stdout).toContain("the folder's other files (assets/logo.png, references/forms.md, scripts/extract.py)");
    const other = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: c, path: ./c, priority: 1 }\n",
      "c/pdf-tools.yaml": readFileSync(join(out, "pdf-tools.yaml"), "utf8"),
    });
    try {
      const rendered = await runCli(["render", "pdf-tools"], other.cwd, other.home);
      expect(rendered.code).toBe(0);
      expect(rendered.stdout).toBe(PDF_BODY);
    } finally {
      other.cleanup();
    }
  });

  test("YAML to a folder; a tool is refused; an existing target is never overwritten", async () => {
    const out = join(fixture.root, "to-md");
    const converted = await cli("convert", "notes", "--to", "skill-md", "--out", out);
    expect(converted.code).toBe(0);
    expect(readFileSync(join(out, "notes/SKILL.md"), "utf8")).toBe(
      '---\nname: notes\ndescription: "Notes in YAML"\n---\nYAML notes',
    );
    const again = await cli("convert", "notes", "--to", "skill-md", "--out", out);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists; nothing was written");
    const same = await cli("convert", "review", "--to", "skill-md");
    expect(same.stderr).toContain("already an Agent Skills folder");
  });
});

describe("live reload of skill folders", () => {
  let live: Fixture;
  let session: Connected;
  let changes: ListChanges;
  beforeAll(async () => {
    live = makeFixture({
      "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n",
      "team/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha\n---\nfirst\n",
      "team/alpha/references/a.md": "one\n",
    });
    session = await connect(SOURCE_TARGET, live.cwd, live.home);
    changes = new ListChanges(session.client);
  });
  afterAll(async () => {
    await session?.close();
    live?.cleanup();
  });

  test("editing SKILL.md's body changes what it renders", async () => {
    live.write("team/alpha/SKILL.md", "---\nname: alpha\ndescription: Alpha\n---\nsecond\n");
    await eventually(async () => expect(textOf(await session.client.getPrompt({ name: "alpha" }))).toBe("second\n"));
  });

  test("a new folder appears with list_changed; removing its SKILL.md withdraws it", async () => {
    live.write("team/beta/SKILL.md", "---\nname: beta\ndescription: Beta\n---\nb\n");
    await changes.waitFor("prompts", 1);
    expect((await session.client.listPrompts()).prompts.map((p) => p.name)).toEqual([
      "alpha",
      "beta",
      "skills:compose",
    ]);
    rmSync(join(live.cwd, "team/beta/SKILL.md"));
    await changes.waitFor("prompts", 2);
    expect((await session.client.listPrompts()).prompts.map((p) => p.name)).toEqual(["alpha", "skills:compose"]);
  });

  test("a changed reference file is picked up: the skill's view carries the new digest", async () => {
    const digestOf = async () => {
      const read = await session.client.readResource({ uri: "skill-central://skills/alpha" });
      const view = JSON.parse((read.contents[0] as { text: string }).text) as { skill: SkillView };
      return view.skill.files!.find((f) => f.path === "references/a.md")!.sha256;
    };
    expect(await digestOf()).toBe(sha256("one\n"));
    live.write("team/alpha/references/a.md", "two\n");
    await eventually(async () => expect(await digestOf()).toBe(sha256("two\n")));
  });
});

describe("the API", () => {
  test("openSkills renders a folder's body with Claude Code's substitutions", async () => {
    const skills = await openSkills({ cwd: fixture.cwd, home: fixture.home });
    expect(await skills.renderPrompt("deploy", { arguments: "qa" })).toBe(
      "Deploy qa.\nEnvironment: qa (flags: )\nCurrent state: !`git status --short`\n",
    );
    expect(skills.get("pdf-tools")).toMatchObject({ format: "skill-md", tags: ["documents", "pdf"], version: "2.1" });
  });
});
