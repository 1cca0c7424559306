import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { initializeLine, rawSession, SOURCE_ENTRY } from "../helpers/server.ts";
import { runCli } from "./cli-run.ts";

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture({
    ".skills/hello.yaml": promptSkill("hello"),
    ".skills/broken.yaml": "id: x\n  description: [\n",
  });
});
afterAll(() => fixture.cleanup());

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, fixture.cwd, fixture.home, env);

describe("help and version", () => {
  test("--version prints the package version; --help lists every command", async () => {
    const [version, help] = await Promise.all([cli(["--version"]), cli(["--help"])]);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    expect(help.code).toBe(0);
    for (const name of ["mcp", "list", "show", "validate", "doctor", "init", "new", "render", "test", "help"])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
    expect(help.stdout).toContain("--no-builtin");
  });

  test("every command has --help with its usage and the global options; `help <command>` is the same", async () => {
    const [list, helpRender, renderHelp] = await Promise.all([
      cli(["list", "--help"]),
      cli(["help", "render"]),
      cli(["render", "-h"]),
    ]);
    expect(list.code).toBe(0);
    expect(list.stdout).toStartWith(
      "Usage: skill-central list [--type prompt|tool] [--tag <tag>] [--layer <name>] [--json]\n",
    );
    expect(list.stdout).toContain("Global options:\n  --cwd <dir>");
    expect(helpRender.stdout).toBe(renderHelp.stdout);
    expect(renderHelp.stdout).toContain("--args-json <json>");
  });
});

describe("usage errors: one line with the closest suggestion, exit 2", () => {
  test("an unknown command", async () => {
    const [typo, nonsense] = await Promise.all([cli(["valdiate"]), cli(["frobnicate"])]);
    expect(typo).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skill-central: error: unknown command "valdiate" (did you mean "validate"?); see skill-central --help\n',
    });
    expect(nonsense.code).toBe(2);
    expect(nonsense.stderr).toBe('skill-central: error: unknown command "frobnicate"; see skill-central --help\n');
  });

  test("an unknown flag, a missing value, a stray argument, a bad --cwd", async () => {
    const [flag, value, stray, cwd] = await Promise.all([
      cli(["show", "hello", "--jsn"]),
      cli(["list", "--cwd"]),
      cli(["doctor", "extra"]),
      cli(["list", "--cwd", "no/such/dir"]),
    ]);
    expect(flag).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skill-central show: error: unknown option "--jsn" (did you mean "--json"?)\n',
    });
    expect(value).toEqual({ code: 2, stdout: "", stderr: "skill-central list: error: option --cwd needs a value\n" });
    expect(stray).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skill-central doctor: error: unexpected argument "extra" (usage: skill-central doctor [--json])\n',
    });
    expect(cwd).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skill-central list: error: --cwd: "no/such/dir" is not a folder\n',
    });
  });

  test("mcp checks its own options: --page-size must be a positive whole number", async () => {
    const { code, stderr } = await cli(["mcp", "--page-size", "0"]);
    expect(code).toBe(2);
    expect(stderr).toBe('skill-central mcp: error: --page-size must be a positive whole number, not "0"\n');
  });
});

describe("global options", () => {
  test("--cwd points at another project and --no-builtin drops the built-in skills", async () => {
    const [withBuiltin, without] = await Promise.all([
      runCli(["list", "--cwd", fixture.cwd], "/", fixture.home),
      runCli(["--cwd", fixture.cwd, "list", "--no-builtin"], "/", fixture.home),
    ]);
    expect(withBuiltin.stdout).toMatch(/\nreview-pr +prompt +builtin/);
    expect(
      without.stdout
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["hello"]);
  });

  test("no colour on a pipe, and none with NO_COLOR", async () => {
    const [piped, noColor] = await Promise.all([
      cli(["validate"], { TERM: "xterm-256color" }),
      cli(["doctor"], { NO_COLOR: "1", TERM: "xterm-256color" }),
    ]);
    expect(piped.stdout).toContain("broken.yaml");
    for (const out of [piped.stdout, piped.stderr, noColor.stdout, noColor.stderr]) expect(out).not.toContain("\x1b[");
  });
});

/** util-linux `script` gives the CLI a real terminal; without it the check is skipped. */
const script = Bun.which("script");

test.if(script !== null)("colour on a terminal, and none there with NO_COLOR", async () => {
  const onTty = async (env: Record<string, string>) => {
    const command = `${process.execPath} ${SOURCE_ENTRY} validate`;
    const proc = Bun.spawn([script!, "-qec", command, "/dev/null"], {
      cwd: fixture.cwd,
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "", TERM: "xterm", ...env },
      stdin: "ignore",
      stdout: "pipe",
    });
    return new Response(proc.stdout).text();
  };
  const [coloured, plain] = await Promise.all([onTty({}), onTty({ NO_COLOR: "1" })]);
  expect(coloured).toContain("\x1b[31merror\x1b[39m");
  expect(plain).toContain(": error: ");
  expect(plain).not.toContain("\x1b[");
});

test("with no command, the CLI runs the MCP server", async () => {
  const raw = await rawSession(
    { name: "default", command: process.execPath, args: [SOURCE_ENTRY] },
    fixture.cwd,
    fixture.home,
    [initializeLine(1)],
    1,
  );
  expect(raw.exitCode).toBe(0);
  expect(JSON.parse(raw.stdout[0]!)).toMatchObject({
    id: 1,
    result: { serverInfo: { name: "skill-central", version: pkg.version } },
  });
});
