import { describe, expect, test } from "bun:test";
import { parseArgs } from "node:util";
import {
  choice,
  flag,
  flagNames,
  givenOptions,
  list,
  optionHelp,
  parseArgsConfig,
  positiveInt,
  readValues,
  text,
  value,
  wholeNumber,
} from "../../src/commands/support/options.ts";
import { scopeOption } from "../../src/commands/support/install-output.ts";

const OPTIONS = {
  watch: flag("Do not reload", { negatable: true }),
  type: choice(["prompt", "tool"], "Only one kind", { quoted: true }),
  format: choice(["yaml", "skill-md"], "The format", { default: "yaml" }),
  limit: positiveInt("<n>", "At most this many", { default: 20 }),
  port: wholeNumber(0, 65_535, "<n>", "A port"),
  tag: list("<tag>", "A tag (repeatable)"),
  cwd: text("<dir>", "A folder"),
  yes: flag("Do not ask", { short: "y" }),
  update: flag("Move a layer", { value: "[layer]" }),
};

function read(args: string[]) {
  const { values } = parseArgs({ args, options: parseArgsConfig(OPTIONS), strict: true, allowNegative: true });
  return readValues(OPTIONS, values);
}

describe("options declared once", () => {
  test("parseArgs' config comes from the declarations", () => {
    expect(parseArgsConfig(OPTIONS)).toEqual({
      watch: { type: "boolean" },
      type: { type: "string" },
      format: { type: "string" },
      limit: { type: "string" },
      port: { type: "string" },
      tag: { type: "string", multiple: true },
      cwd: { type: "string" },
      yes: { type: "boolean", short: "y" },
      update: { type: "boolean" },
    });
  });

  test("help lines: a negatable flag by its --no- form, a short alias first, choices as a|b, in declaration order", () => {
    const labels = optionHelp(OPTIONS)
      .split("\n")
      .map((line) => line.slice(2, 24));
    expect(labels).toEqual([
      "--no-watch            ",
      "--type prompt|tool    ",
      "--format yaml|skill-md",
      "--limit <n>           ",
      "--port <n>            ",
      "--tag <tag>           ",
      "--cwd <dir>           ",
      "-y, --yes             ",
      "--update [layer]      ",
      "",
    ]);
    expect(optionHelp({ json: flag("Machine-readable output"), help: flag("Show help", { short: "h" }) })).toBe(
      "  --json      Machine-readable output\n  -h, --help  Show help\n",
    );
    expect(flagNames({ watch: OPTIONS.watch, yes: OPTIONS.yes })).toEqual(["--watch", "--no-watch", "--yes"]);
  });

  test("typed values: defaults, flags, lists and parsed numbers", () => {
    expect({ ...read([]) }).toEqual({
      watch: true,
      type: undefined,
      format: "yaml",
      limit: 20,
      port: undefined,
      tag: [],
      cwd: undefined,
      yes: false,
      update: false,
    });
    expect({
      ...read(["--no-watch", "--type", "tool", "--limit", "5", "--port", "0", "--tag", "a", "--tag", "b", "-y"]),
    }).toMatchObject({ watch: false, type: "tool", limit: 5, port: 0, tag: ["a", "b"], yes: true });
  });

  test("a bad value is a usage error that names the flag, the choices, and the nearest one", () => {
    expect(() => read(["--limit", "0"]).limit).toThrow('--limit must be a positive whole number, not "0"');
    expect(() => read(["--limit", "1.5"]).limit).toThrow('--limit must be a positive whole number, not "1.5"');
    expect(() => read(["--port", "65536"]).port).toThrow('--port must be a whole number from 0 to 65535, not "65536"');
    expect(() => read(["--type", "tools"]).type).toThrow(
      '--type must be "prompt" or "tool", not "tools" (did you mean "tool"?)',
    );
    expect(() => read(["--format", "md"]).format).toThrow('--format must be yaml or skill-md, not "md"');
    const catalog = readValues({ catalog: choice(["auto", "on", "off"], "Catalog tools") }, { catalog: "offf" });
    expect(() => catalog.catalog).toThrow('--catalog must be auto, on or off, not "offf" (did you mean "off"?)');
  });

  test("--scope suggests the nearest scope, as every other choice does", () => {
    const values = (raw: string) => readValues({ scope: scopeOption("Where") }, { scope: raw });
    expect(values("project").scope).toBe("project");
    expect(() => values("global").scope).toThrow('--scope must be user or project, not "global"');
    expect(() => values("usr").scope).toThrow('--scope must be user or project, not "usr" (did you mean "user"?)');
    expect(readValues({ scope: scopeOption("Where") }, {}).scope).toBe("user");
  });

  test("a value is parsed when first read, so a command meets bad values in the order it checks them", () => {
    const seen: string[] = [];
    const traced = (name: string) =>
      value("<x>", name, (raw) => {
        seen.push(name);
        return raw;
      });
    const values = readValues({ a: traced("a"), b: traced("b") }, { a: "1", b: "2" });
    expect(seen).toEqual([]);
    expect([values.b, values.a, values.b]).toEqual(["2", "1", "2"]);
    expect(seen).toEqual(["b", "a"]);
  });
});

describe("a setting an MCP Bundle host left unfilled (`${user_config.KEY}` as written)", () => {
  // Claude Desktop resolves a bundle's mcp_config as @anthropic-ai/mcpb's getMcpConfigForManifest
  // does: an optional setting the user left empty, with no default, stays the literal placeholder.
  const unfilled = "${user_config.project_folder}";

  test("reads as an option not given: the default, or undefined, or left out of a list", () => {
    const values = read(["--cwd", unfilled, "--limit", "${user_config.limit}", "--tag", unfilled, "--tag", "a"]);
    expect(values.cwd).toBeUndefined();
    expect(values.limit).toBe(20);
    expect(values.tag).toEqual(["a"]);
    expect(read(["--port", "${user_config.port}"]).port).toBeUndefined(); // not "must be a whole number"
  });

  test("is not given for the checks that ask whether an option was (e.g. --port without --http)", () => {
    expect([...givenOptions({ cwd: unfilled, port: "8740", tag: [unfilled], watch: false })]).toEqual([
      "port",
      "watch",
    ]);
    expect([...givenOptions({ tag: [unfilled, "a"] })]).toEqual(["tag"]);
  });

  test("only the whole placeholder: a value that merely contains one, or another variable, is taken as written", () => {
    expect(read(["--cwd", "/home/${user_config.x}"]).cwd).toBe("/home/${user_config.x}");
    expect(read(["--cwd", "${HOME}"]).cwd).toBe("${HOME}");
    expect(read(["--cwd", "${user_config.a} ${user_config.b}"]).cwd).toBe("${user_config.a} ${user_config.b}");
  });
});
