import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, rawSession, SOURCE_ENTRY } from "../helpers/server.ts";
import { runCommand, type CliRun } from "./cli-run.ts";

/**
 * The two messages issue 23 item 18 found wanting, through the whole program: a key indented one
 * level too deep (told apart from text that holds ": "), and a Handlebars template that does
 * not parse (said in words, never as the grammar's token list), each at the line and column of
 * the skill file where the fix goes. `validate` and the server's startup warning say the same.
 */
const HEAD = "description: d\ntype: prompt\n";
const FILES: Record<string, string> = {
  ".skills/indent.yaml": "id: indent\ndescription: Review a change\n  type: prompt\nprompt: hi\n",
  ".skills/colon.yaml": "id: colon\ndescription: Fix: the bug\ntype: prompt\nprompt: hi\n",
  ".skills/open-tag.yaml": `id: open-tag\n${HEAD}prompt: |\n  Hello\n  {{#if ready}\n  more\n  {{/if}}\n`,
  ".skills/never-closed.yaml": `id: never-closed\n${HEAD}prompt: |\n  {{#each items}}\n  - {{this}}\n`,
  ".skills/mismatch.yaml": `id: mismatch\n${HEAD}prompt: "{{#if a}}x{{/each}}"\n`,
  ".skills/stray-close.yaml": `id: stray-close\n${HEAD}prompt: 'Done {{/if}}'\n`,
  ".skills/folder/SKILL.md": "---\nname: folder\ndescription: A folder skill\n  license: MIT\n---\nBody\n",
  // An Agent Skills body is served as written, never through Handlebars: no template error.
  ".skills/literal/SKILL.md":
    "---\nname: literal\ndescription: Braces in a code sample\n---\nWrite `{{#if x}` in the sample.\n",
};

const EXPECTED = [
  '.skills/colon.yaml:2:14: error: invalid YAML: the value of "description" holds ": " (column 17), which YAML reads as the start of a nested key — quote the value: description: "Fix: the bug"',
  '.skills/folder/SKILL.md:4:3: error: the frontmatter is not valid YAML: "license:" on line 4 is indented deeper than "description:" on line 3, so YAML reads it as more of description\'s text — un-indent line 4 to column 1, in line with "description:" (or, if it is meant as text, quote description\'s value)',
  '.skills/indent.yaml:3:3: error: invalid YAML: "type:" on line 3 is indented deeper than "description:" on line 2, so YAML reads it as more of description\'s text — un-indent line 3 to column 1, in line with "description:" (or, if it is meant as text, quote description\'s value)',
  ".skills/mismatch.yaml:4:20: error: template does not parse: {{/each}} does not match {{#if}}, opened at line 4, column 10 — write {{/if}} here: blocks close in the reverse order they were opened",
  ".skills/never-closed.yaml:5:3: error: template does not parse: {{#each}} is never closed — add {{/each}} where the block ends",
  ".skills/open-tag.yaml:6:3: error: template does not parse: the tag {{#if ready} ends with one } instead of }} — close it with }}: {{#if ready}}",
  ".skills/stray-close.yaml:4:15: error: template does not parse: {{/if}} closes a block that is not open — remove it, or open the block before it with {{#if …}}",
];

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

function run(command: string[]): Promise<CliRun> {
  return runCommand(command, fixture.cwd, { HOME: fixture.home, PATH: process.env.PATH ?? "" });
}

const TARGETS: { name: string; command: () => Promise<string[]> }[] = [
  { name: "source", command: async () => [process.execPath, SOURCE_ENTRY] },
  { name: "binary", command: async () => [await buildForTests()] },
];

for (const target of TARGETS) {
  describe(`error messages in words (${target.name})`, () => {
    let command: string[];
    beforeAll(async () => {
      command = await target.command();
    }, 180_000);

    test("validate says the fix at the right line and column, with no grammar token names", async () => {
      const { code, stdout } = await run([...command, "validate", "--no-builtin"]);
      expect(code).toBe(1);
      const lines = stdout
        .trimEnd()
        .split("\n")
        .filter((l) => l.includes(": error: "));
      expect(lines).toEqual(EXPECTED);
      expect(stdout).not.toMatch(/Expecting|CLOSE_RAW_BLOCK|'INVALID'|compact mappings|quote text that contains/);
    });

    test("the server's startup warnings on stderr say the same, file by file", async () => {
      const session = await rawSession(
        { name: target.name, command: command[0]!, args: [...command.slice(1), "mcp", "--no-builtin"] },
        fixture.cwd,
        fixture.home,
        [initializeLine(1)],
        1,
      );
      expect(session.exitCode).toBe(0);
      const warnings = session.stderr.split("\n").filter((l) => l.includes(": error: "));
      const words = (line: string) =>
        line.replace(/^\[skill-central\] /, "").replace(": error: skipped: ", ": error: ");
      expect(warnings.map(words).sort()).toEqual(EXPECTED);
    });
  });
}
