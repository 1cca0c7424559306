import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, type Remote } from "../helpers/git-remote.ts";
import { serveFolder } from "../helpers/static-host.ts";
import { runCli, type CliRun } from "./cli-run.ts";

/**
 * "Your CI judges your skills" (issue 51, item 3), through the real CLI and real git: the form of
 * a vendored skill (a git layer) is a note that never sets the exit status of validate, doctor or
 * validate --strict, while the same skill copied into the project's own folder still counts, and a
 * git layer's copy that fails verification (an access finding) still fails. `checks.ignore`
 * silences one rule for one skill or one layer, with a reason, listed by doctor; a stale entry is
 * reported.
 */

/** 1,068 characters, as anthropics' claude-api description was. */
const LONG_DESCRIPTION =
  `Use when writing release notes for a product release: ${"gather the merged changes, group them by kind, and write each for users. ".repeat(15)}`.slice(
    0,
    1068,
  );
const skillMd = (name: string, description: string, bodyLines = 3) =>
  `---\nname: ${name}\ndescription: "${description}"\n---\n${Array.from({ length: bodyLines }, (_, i) => `Step ${i + 1}: write the notes.`).join("\n")}\n`;

let fixture: Fixture;
let remote: Remote;
const cli = (args: string[], cwd = fixture.cwd): Promise<CliRun> =>
  runCli([...args, "--no-builtin"], cwd, fixture.home, { NO_COLOR: "1" });

beforeAll(async () => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
  remote.commit({
    "skills/release-notes/SKILL.md": skillMd("release-notes", LONG_DESCRIPTION, 520),
    "skills/changelog/SKILL.md": skillMd("changelog", "Changelog writing"),
  });
  fixture.write(
    "skill-central.yaml",
    `layers:\n  - { name: vendor, priority: 10, git: ${remote.url}, path: skills }\n  - { name: team, priority: 50, path: ./team }\n`,
  );
  fixture.write(
    "team/standup/SKILL.md",
    skillMd("standup", "Summarise yesterday's merged work for the daily standup meeting"),
  );
  const synced = await cli(["sync"]);
  expect(synced.code).toBe(0);
});
afterAll(() => fixture.cleanup());

describe("the form of a skill the project does not own", () => {
  test("a vendored skill's 1,068-character description, long body and vague description are notes: validate, --strict and doctor exit 0", async () => {
    const validate = await cli(["validate"]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(
      /release-notes\/SKILL\.md:3:\d+: note: "description" is 1068 characters.*\(layer "vendor" is not this project's to fix\)/,
    );
    expect(validate.stdout).toMatch(/changelog\/SKILL\.md:3:\d+: note: the description of "changelog" is too vague/);
    expect(validate.stdout).not.toMatch(/: (error|warning): /);
    const strict = await cli(["validate", "--strict"]);
    expect(strict.code).toBe(0);
    expect(strict.stderr).toContain("no errors, 0 warnings");
    const doctor = await cli(["doctor", "--json"]);
    expect(doctor.code).toBe(0);
    const problems = (JSON.parse(doctor.stdout) as { problems: { rule: string; severity: string }[] }).problems;
    expect(problems.find((p) => p.rule === "description-too-long")?.severity).toBe("note");
  });

  test("the same skill copied into the project's own folder is the project's: validate exits 1 on its description", async () => {
    const copy = makeFixture({
      ".skills/release-notes/SKILL.md": skillMd("release-notes", LONG_DESCRIPTION, 520),
    });
    try {
      const run = await runCli(["validate", "--no-builtin"], copy.cwd, copy.home, { NO_COLOR: "1" });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('.skills/release-notes/SKILL.md:3:14: error: "description" is 1068 characters');
    } finally {
      copy.cleanup();
    }
  });

  test("an access finding of a vendored layer still counts: a copy that no longer matches its commit fails validate and doctor", async () => {
    const other = makeFixture();
    try {
      other.write(
        "skill-central.yaml",
        `layers:\n  - { name: vendor, priority: 10, git: ${remote.url}, path: skills }\n`,
      );
      const run = (args: string[]) => runCli([...args, "--no-builtin"], other.cwd, other.home, { NO_COLOR: "1" });
      expect((await run(["sync"])).code).toBe(0);
      const copies = join(other.home, ".cache", "skill-central", "git");
      const repo = readdirSync(copies).find((name) => name !== "projects");
      const [commit] = readdirSync(join(copies, repo!, "copies"));
      const folder = join(copies, repo!, "copies", commit!, "changelog");
      chmodSync(folder, 0o755);
      chmodSync(join(folder, "SKILL.md"), 0o644);
      writeFileSync(
        join(folder, "SKILL.md"),
        skillMd("changelog", "Write a changelog entry; and do something else too"),
      );
      const validate = await run(["validate"]);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain("does not match its contentHash");
      expect((await run(["doctor"])).code).toBe(1);
    } finally {
      other.cleanup();
    }
  });
});

describe("checks.ignore", () => {
  const configWith = (checks: string) =>
    `layers:\n  - { name: vendor, priority: 10, git: ${remote.url}, path: skills }\n  - { name: team, priority: 50, path: ./team }\n${checks}`;
  const restore = () => fixture.write("skill-central.yaml", configWith(""));

  test("silences one rule for one skill of the project's own, with its reason: --strict passes, doctor lists it", async () => {
    fixture.write("team/todo/SKILL.md", skillMd("todo", "Track todos"));
    fixture.write(
      "skill-central.yaml",
      configWith(
        'checks:\n  ignore:\n    - { rule: vague-description, skill: todo, reason: "a short name the team knows by heart" }\n',
      ),
    );
    try {
      const strict = await cli(["validate", "--strict"]);
      expect(strict.stdout).not.toContain("todo");
      expect(strict.stderr).toContain(", 1 silenced by checks.ignore");
      expect(strict.code).toBe(0);
      const doctor = await cli(["doctor"]);
      expect(doctor.stdout).toContain(
        "vague-description for skill todo: 1 finding — a short name the team knows by heart (skill-central.yaml:6:7)",
      );
      const json = JSON.parse((await cli(["doctor", "--json"])).stdout) as { silenced: unknown[] };
      expect(json.silenced).toEqual([
        {
          rule: "vague-description",
          skill: "todo",
          reason: "a short name the team knows by heart",
          file: "skill-central.yaml",
          line: 6,
          column: 7,
          silenced: 1,
        },
      ]);
    } finally {
      fixture.remove("team/todo");
      restore();
    }
  });

  test("a layer entry silences the rule for every skill of that layer; an entry that silences nothing is reported and fails --strict", async () => {
    fixture.write(
      "skill-central.yaml",
      configWith(
        "checks:\n  ignore:\n" +
          '    - { rule: vague-description, layer: vendor, reason: "upstream\'s wording" }\n' +
          '    - { rule: body-too-long, skill: standup, reason: "was long once" }\n',
      ),
    );
    try {
      const strict = await cli(["validate", "--strict"]);
      expect(strict.stdout).not.toContain('the description of "changelog"');
      expect(strict.stdout).toContain(
        'skill-central.yaml:7:7: warning: checks.ignore entry for "body-too-long" on skill "standup" silences nothing',
      );
      expect(strict.code).toBe(1);
      expect((await cli(["validate"])).code).toBe(0);
    } finally {
      restore();
    }
  });

  test("an entry without a reason is refused at its line; one for a security rule is refused too", async () => {
    fixture.write(
      "skill-central.yaml",
      configWith(
        "checks:\n  ignore:\n    - { rule: vague-description, skill: changelog }\n" +
          '    - { rule: audit-blocked, layer: vendor, reason: "we trust them" }\n',
      ),
    );
    try {
      const run = await cli(["validate"]);
      expect(run.stdout).toMatch(/skill-central\.yaml:6:7: warning: "checks\.ignore" entry 1 needs "reason"; ignored/);
      expect(run.stdout).toContain(
        'skill-central.yaml:7:7: warning: checks.ignore cannot silence "audit-blocked" for layer "vendor"',
      );
    } finally {
      restore();
    }
  });
});

describe("a url layer (an Agent Skills well-known index) is not the project's either", () => {
  test("its vague description is a note named <layer>@<index hash>:<path>; --strict passes", async () => {
    const publisher = makeFixture({ ".skills/notes/SKILL.md": skillMd("notes", "Release notes") });
    const consumer = makeFixture();
    const host = serveFolder(join(publisher.cwd, "site"));
    try {
      const published = await runCli(["publish", "site", "--no-builtin"], publisher.cwd, publisher.home);
      expect(published.code).toBe(0);
      consumer.write(
        "skill-central.yaml",
        `layers:\n  - { name: docs, priority: 10, url: "http://127.0.0.1:${host.port}/.well-known/agent-skills/" }\n`,
      );
      const run = (args: string[]) => runCli([...args, "--no-builtin"], consumer.cwd, consumer.home, { NO_COLOR: "1" });
      expect((await run(["sync"])).code).toBe(0);
      const strict = await run(["validate", "--strict"]);
      expect(strict.stdout).toMatch(
        /^docs@[0-9a-f]{7}:notes\/SKILL\.md:3:\d+: note: the description of "notes" is too vague .*\(layer "docs" is not this project's to fix\)/m,
      );
      expect(strict.code).toBe(0);
    } finally {
      host.stop(true);
      publisher.cleanup();
      consumer.cleanup();
    }
  });
});
