import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, type Remote } from "../helpers/git-remote.ts";
import Schema from "typebox/schema";
import sarifSchema from "../fixtures/sarif/sarif-schema-2.1.0.json";
import { connect, SOURCE_ENTRY, SOURCE_TARGET } from "../helpers/server.ts";
import { eventually } from "./live-session.ts";
import { runCli, runCommand, type CliRun } from "./cli-run.ts";

/**
 * "Paths people can read" (issue 51, item 4), through the real CLI and real git: a file of a git
 * layer is named `<layer>@<commit>:<path>` in every message, table and SARIF result of validate,
 * doctor, audit, show and overlap; its cache path only with --verbose. `list` fits its
 * descriptions to the width asked for, and piped it cuts nothing.
 */

// A variation selector (U+FE0F) is a medium audit finding: reported, not blocked at sync.
const NOTES = `---\nname: release-notes\ndescription: Release notes\n---\nWrite the notes.\n\nMark each fix with a check\u{FE0F} sign.\n`;
const LONG =
  "Write the changelog for a release: gather merged pull requests, group them by kind, and write each entry for the people who use the product, not for its developers.";
const CHANGELOG = `---\nname: changelog\ndescription: "${LONG}"\nmetadata:\n  tags: "release notes changelog writing"\n---\nWrite it.\n`;

// Over the 500 lines the specification recommends: a warning of the load itself, printed by every command.
const LONG_BODY = `---\nname: style-guide\ndescription: The house style for user-facing text, with examples of each rule\n---\n${"A rule of the house style.\n".repeat(510)}`;

let fixture: Fixture;
let remote: Remote;
let commit: string;
let label: string;
const CACHE = ".cache/skill-central";
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
  runCli([...args, "--no-builtin"], fixture.cwd, fixture.home, { NO_COLOR: "1", ...env });

beforeAll(async () => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
  commit = remote.commit({
    "skills/release-notes/SKILL.md": NOTES,
    "skills/changelog/SKILL.md": CHANGELOG,
    "skills/style-guide/SKILL.md": LONG_BODY,
  });
  label = `team@${commit.slice(0, 7)}`;
  fixture.write("skill-central.yaml", `layers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`);
  expect((await cli(["sync"])).code).toBe(0);
});
afterAll(() => fixture.cleanup());

describe("a git layer's files are named by layer and commit", () => {
  const commands: [string, string[], RegExp][] = [
    [
      "validate",
      ["validate"],
      /^team@[0-9a-f]{7}:release-notes\/SKILL\.md:3:14: note: the description of "release-notes" is too vague/m,
    ],
    ["validate --json", ["validate", "--json"], /"file": "team@[0-9a-f]{7}:release-notes\/SKILL\.md"/],
    ["doctor", ["doctor"], /^ {2}team +50 +team@[0-9a-f]{7}: +3 files, 3 served/m],
    ["doctor --json", ["doctor", "--json"], /"dir": "team@[0-9a-f]{7}:"/],
    ["audit", ["audit"], /^ {2}team@[0-9a-f]{7}:release-notes\/SKILL\.md:7:\d+ +medium +invisible-characters/m],
    ["audit --format json", ["audit", "--format", "json"], /"path": "team@[0-9a-f]{7}:release-notes\/SKILL\.md"/],
    ["show", ["show", "changelog"], /team@[0-9a-f]{7}:changelog\/SKILL\.md/],
    ["show --json", ["show", "changelog", "--json"], /"source": "team@[0-9a-f]{7}:changelog\/SKILL\.md"/],
    ["overlap", ["overlap"], /^team@[0-9a-f]{7}:style-guide\/SKILL\.md:5:1: warning: the body is 510 lines/m],
    ["list", ["list"], /^team@[0-9a-f]{7}:style-guide\/SKILL\.md:5:1: warning: the body is 510 lines/m],
  ];
  for (const [name, args, expected] of commands)
    test(`${name}: the readable name, and no cache path anywhere in its output`, async () => {
      const run = await cli(args);
      const output = run.stdout + run.stderr;
      expect(output).toMatch(expected);
      expect(output).toContain(label);
      expect(output).not.toContain(CACHE);
    });

  test("audit --format sarif: each result's file is described as team@commit:path, and the layer's base as the layer at its commit", async () => {
    const run = await cli(["audit", "--format", "sarif"]);
    expect(run.stdout).not.toContain(CACHE);
    const sarif = JSON.parse(run.stdout) as {
      runs: {
        results: {
          locations: {
            physicalLocation: { artifactLocation: { uri: string; uriBaseId: string; description?: { text: string } } };
          }[];
        }[];
        originalUriBaseIds?: Record<string, { uri?: string; description: { text: string } }>;
      }[];
    };
    const [result] = sarif.runs[0]!.results;
    expect(result!.locations[0]!.physicalLocation.artifactLocation).toEqual({
      uri: "release-notes/SKILL.md",
      uriBaseId: "LAYER_TEAM",
      description: { text: `${label}:release-notes/SKILL.md` },
    });
    expect(sarif.runs[0]!.originalUriBaseIds?.LAYER_TEAM?.description.text).toContain(`layer "team" (${label})`);
    expect(sarif.runs[0]!.originalUriBaseIds?.LAYER_TEAM?.uri).toBeUndefined();
    const verbose = JSON.parse((await cli(["audit", "--format", "sarif", "--verbose"])).stdout) as typeof sarif;
    expect(verbose.runs[0]!.originalUriBaseIds?.LAYER_TEAM?.uri).toMatch(/^file:\/\/.*\.cache\/skill-central\/.*\/$/);
    // Both stay SARIF 2.1.0 by the official OASIS schema.
    const validator = Schema.Compile(sarifSchema as never);
    expect(validator.Check(sarif)).toBe(true);
    expect(validator.Check(verbose)).toBe(true);
  });

  test("the server's log names it so too", async () => {
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      expect((await session.client.listPrompts()).prompts.map((p) => p.name)).toContain("style-guide");
      await eventually(() =>
        expect(session.stderr()).toMatch(/team@[0-9a-f]{7}:style-guide\/SKILL\.md:5:1: warning: the body is 510 lines/),
      );
      expect(session.stderr()).not.toContain(CACHE);
    } finally {
      await session.close();
    }
  });

  test("--verbose names the cache path instead", async () => {
    const run = await cli(["validate", "--verbose"]);
    expect(run.stdout).toContain(`${CACHE}/git/`);
    expect(run.stdout).toMatch(/\/release-notes\/SKILL\.md:3:14: note: /);
    expect(run.stdout).not.toContain(label);
  });
});

describe("list fits descriptions to the width", () => {
  test("COLUMNS: each row fits, the description cut with an ellipsis, the tags left out when a description would have too little room", async () => {
    for (const columns of [60, 100]) {
      const run = await cli(["list"], { COLUMNS: String(columns) });
      const lines = run.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^ID +TYPE +LAYER +PRIORITY +DESCRIPTION$/);
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(columns);
      expect(run.stdout).toMatch(/^changelog .*Write the changelog.*…$/m);
    }
    const wide = await cli(["list"], { COLUMNS: "400" });
    expect(wide.stdout).toMatch(/^ID +TYPE +LAYER +PRIORITY +TAGS +DESCRIPTION$/m);
    expect(wide.stdout).toContain(LONG);
  });

  // util-linux `script` gives the CLI a real terminal, whose width `stty` sets: no COLUMNS involved.
  test.skipIf(Bun.which("script") === null)("on a terminal, rows fit the terminal's own width", async () => {
    const command = `stty cols 70 rows 24; ${JSON.stringify(process.execPath)} ${JSON.stringify(SOURCE_ENTRY)} list --no-builtin`;
    const run = await runCommand(["script", "-qec", command, "/dev/null"], fixture.cwd, {
      HOME: fixture.home,
      PATH: process.env.PATH ?? "",
      NO_COLOR: "1",
    });
    const lines = run.stdout
      .split(/\r?\n/)
      .filter((l) => l.startsWith("ID") || /^(changelog|release-notes|style-guide) /.test(l));
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(70);
    expect(lines.join("\n")).toMatch(/^changelog .*…$/m);
  });

  test("piped without COLUMNS, every description is whole", async () => {
    const run = await cli(["list"]);
    expect(run.stdout).toContain(LONG);
    expect(run.stdout).toMatch(/TAGS/);
  });
});
