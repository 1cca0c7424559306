import { describe, expect, test } from "bun:test";
import { EditRefused, isConfigDocument, openConfig, type ConfigDocument } from "../../src/install/config-document.ts";
import { editToml, parseToml, tomlString } from "../../src/install/toml-edit.ts";
import { mulberry32 } from "../helpers/random.ts";

const PATH = ["mcp_servers", "skill-central"];
const ENTRY = { command: "/opt/skill-central", args: ["mcp", "--cwd", '/home/a "b"/proj'] };
const TABLE =
  '[mcp_servers.skill-central]\ncommand = "/opt/skill-central"\nargs = ["mcp", "--cwd", "/home/a \\"b\\"/proj"]\n';

function doc(text: string): ConfigDocument {
  const opened = openConfig("toml", text);
  if (!isConfigDocument(opened)) throw new Error(`does not parse: ${JSON.stringify(opened)}`);
  return opened;
}

/** Adds the table, checks it with a second TOML parser (Bun's), and checks removal restores the bytes. */
function addThenRemove(text: string): string {
  const added = doc(text).with(PATH, ENTRY);
  const bun = Bun.TOML.parse(added) as { mcp_servers: Record<string, unknown> };
  expect(bun.mcp_servers["skill-central"]).toEqual(ENTRY);
  expect(doc(added).with(PATH, undefined)).toBe(text);
  return added;
}

const CODEX = `# ~/.codex/config.toml
model = "o3" # the default

[mcp_servers.github]
command = "gh"
args = [
  "mcp", # [not.a.header]
  "serve",
]
env = { GH_HOST = "github.com" }

# profiles below
[profiles.fast]
model = "o4-mini"
notes = """
[mcp_servers.skill-central]
is text here, not a table
"""
`;

describe("adding the [mcp_servers.skill-central] table", () => {
  test("it goes right after the other [mcp_servers.*] tables; comments, strings and arrays are untouched", () => {
    const added = addThenRemove(CODEX);
    expect(added).toBe(
      CODEX.replace('env = { GH_HOST = "github.com" }\n', `env = { GH_HOST = "github.com" }\n\n${TABLE}`),
    );
  });

  test("with no server tables it goes at the end; an empty file gets just the table", () => {
    expect(addThenRemove('model = "o3"\n')).toBe(`model = "o3"\n\n${TABLE}`);
    expect(addThenRemove("")).toBe(TABLE);
    expect(doc('model = "o3"').with(PATH, ENTRY)).toBe(`model = "o3"\n\n${TABLE}`);
  });

  test("an [mcp_servers] table with inline servers is a sibling too", () => {
    expect(addThenRemove('[mcp_servers]\ngithub = { command = "gh" }\n\n[x]\ny = 1\n')).toBe(
      `[mcp_servers]\ngithub = { command = "gh" }\n\n${TABLE}\n[x]\ny = 1\n`,
    );
  });

  test("CRLF files get CRLF lines", () => {
    const added = addThenRemove('model = "o3"\r\n');
    expect(added).toBe(`model = "o3"\r\n\r\n${TABLE.replace(/\n/g, "\r\n")}`);
  });

  test("HTTP entries: url and bearer_token_env_var", () => {
    const added = doc("").with(PATH, { url: "https://skills.example.com/mcp", bearer_token_env_var: "SKILLS_TOKEN" });
    expect(added).toBe(
      '[mcp_servers.skill-central]\nurl = "https://skills.example.com/mcp"\nbearer_token_env_var = "SKILLS_TOKEN"\n',
    );
  });
});

describe("replacing and removing", () => {
  test("--force replaces our table in place, with its sub-tables, and nothing else", () => {
    const before = `a = 1

[mcp_servers.skill-central]
command = "/old/skill-central"
# inside our table
args = ["mcp"]

[mcp_servers.skill-central.env]
X = "1"

# about the next table
[mcp_servers.other]
command = "o"
`;
    const after = doc(before).with(PATH, ENTRY);
    expect(after).toBe(`a = 1\n\n${TABLE}\n# about the next table\n[mcp_servers.other]\ncommand = "o"\n`);
    expect(doc(after).with(PATH, undefined)).toBe(
      'a = 1\n\n# about the next table\n[mcp_servers.other]\ncommand = "o"\n',
    );
  });

  test("a quoted header is still our table", () => {
    expect(doc('[mcp_servers."skill-central"]\ncommand = "x"\n').with(PATH, undefined)).toBe("");
    expect(doc("[ mcp_servers . 'skill-central' ]\ncommand = \"x\"\n").with(PATH, ENTRY)).toBe(TABLE);
  });

  test("a table whose name only starts like ours is not ours", () => {
    const text = '[mcp_servers.skill-central-old]\ncommand = "x"\n';
    expect(doc(text).with(PATH, undefined)).toBe(text);
    expect(addThenRemove(text)).toBe(`${text}\n${TABLE}`);
  });

  test("our table first in the file: removal takes the blank line after it", () => {
    expect(doc(`${TABLE}\n[other]\nx = 1\n`).with(PATH, undefined)).toBe("[other]\nx = 1\n");
  });
});

describe("what the editor refuses or reports", () => {
  test("an entry written as dotted keys or an inline table is left for the user to change", () => {
    expect(() => doc('mcp_servers = { skill-central = { command = "x" } }\n').with(PATH, ENTRY)).toThrow(EditRefused);
    expect(() => doc('[mcp_servers]\nskill-central.command = "x"\n').with(PATH, undefined)).toThrow(
      "dotted keys or an inline table",
    );
  });

  test("adding a table to an inline mcp_servers would be invalid TOML: refused, nothing written", () => {
    expect(() => doc('mcp_servers = { github = { command = "gh" } }\n').with(PATH, ENTRY)).toThrow("would not parse");
  });

  test("syntax errors come with line and column", () => {
    const cases: [string, string][] = [
      ["a = 1\nb = = 2\n", "2:5: invalid value"],
      ["[x]\na = 1\n[x]\n", "3:2: trying to redefine an already defined table or value"],
      ['a = "open\n', "1:10: control characters are not allowed in strings"],
    ];
    for (const [text, expected] of cases) {
      const result = parseToml(text);
      expect("message" in result ? `${result.line}:${result.column}: ${result.message}` : "parsed").toBe(expected);
    }
  });
});

describe("strings and keys", () => {
  test("tomlString escapes what TOML basic strings must", () => {
    const tricky = 'C:\\path "quoted"\n\ttab\u0001';
    expect(Bun.TOML.parse(`v = ${tomlString(tricky)}`)).toEqual({ v: tricky });
  });

  test("property: random Codex-like files with our table added and removed come back byte for byte", () => {
    const random = mulberry32(4242);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const value = () =>
      pick([
        '"s"',
        "1",
        "true",
        '["a", "b"]',
        '[\n  "x", # c\n  "y",\n]',
        '"""\n[fake.header]\n"""',
        "{ k = 1 }",
        "'lit'",
      ]);
    for (let i = 0; i < 200; i++) {
      const lines: string[] = [];
      for (let k = 0; k < Math.floor(random() * 3); k++) lines.push(`top${k} = ${value()}`);
      const tables = Math.floor(random() * 4);
      for (let t = 0; t < tables; t++) {
        if (random() < 0.5) lines.push("");
        if (random() < 0.3) lines.push("# a comment");
        lines.push(`[${pick(["mcp_servers", "profiles", "tools"])}.n${t}]`);
        for (let k = 0; k < 1 + Math.floor(random() * 3); k++)
          lines.push(`k${k} = ${value()}${random() < 0.2 ? " # trailing" : ""}`);
      }
      const text = lines.join("\n") + (lines.length > 0 ? "\n" : "");
      try {
        addThenRemove(text);
      } catch (error) {
        throw new Error(`case ${i}:\n${text}\n${(error as Error).message}`);
      }
    }
  });

  test("editToml alone keeps the data of every other table", () => {
    const parsed = parseToml(CODEX);
    if ("message" in parsed) throw new Error("fixture does not parse");
    const after = Bun.TOML.parse(editToml(parsed, PATH, ENTRY)) as Record<string, unknown>;
    const before = Bun.TOML.parse(CODEX) as Record<string, { [k: string]: unknown }>;
    expect(after).toEqual({ ...before, mcp_servers: { ...before.mcp_servers, "skill-central": ENTRY } });
  });
});
