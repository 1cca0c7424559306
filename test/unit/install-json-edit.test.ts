import { describe, expect, test } from "bun:test";
import {
  openConfig,
  isConfigDocument,
  EditRefused,
  type ConfigDocument,
  type ConfigFormat,
} from "../../src/install/config-document.ts";
import { editJson, isSyntaxProblem, JSONC, parseJson, STRICT_JSON } from "../../src/install/json-edit.ts";
import { mulberry32 } from "../helpers/random.ts";

const ENTRY = { command: "/opt/skill-central", args: ["mcp", "--cwd", "${workspaceFolder}"] };
const PATH = ["mcpServers", "skill-central"];

function doc(text: string, format: ConfigFormat = "jsonc"): ConfigDocument {
  const opened = openConfig(format, text);
  if (!isConfigDocument(opened)) throw new Error(`does not parse: ${JSON.stringify(opened)}`);
  return opened;
}

/**
 * Adds the entry, checks the result, and checks that removing it gives back the same bytes. When
 * the file had no `mcpServers` yet, removal leaves the `"mcpServers": {}` install created
 * (uninstall removes only our entry), so then the rest must read back unchanged.
 */
function addThenRemove(text: string, format: ConfigFormat = "jsonc"): string {
  const before = doc(text, format);
  const added = before.with(PATH, ENTRY);
  expect((doc(added, format).data as { mcpServers: Record<string, unknown> }).mcpServers["skill-central"]).toEqual(
    ENTRY,
  );
  const removed = doc(added, format).with(PATH, undefined);
  if (before.get(["mcpServers"]) !== undefined) expect(removed).toBe(text);
  else expect(doc(removed, format).data).toEqual({ ...(before.data as object), mcpServers: {} });
  return added;
}

describe("adding an entry leaves every other byte alone", () => {
  test("a file with other servers, comments and trailing commas (VS Code style)", () => {
    const before = `{
  // servers I use every day
  "mcpServers": {
    "github": { "type": "http", "url": "https://api.example.com/mcp" }, // one line, keep it
    /* a block comment */
    "db": {
      "command": "db-mcp",
    },
  },
  "inputs": [],
}
`;
    expect(addThenRemove(before)).toBe(`{
  // servers I use every day
  "mcpServers": {
    "github": { "type": "http", "url": "https://api.example.com/mcp" }, // one line, keep it
    /* a block comment */
    "db": {
      "command": "db-mcp",
    },
    "skill-central": {
      "command": "/opt/skill-central",
      "args": [
        "mcp",
        "--cwd",
        "\${workspaceFolder}"
      ]
    },
  },
  "inputs": [],
}
`);
  });

  test("the file's indentation (tabs, four spaces) and line endings (CRLF) are kept", () => {
    expect(addThenRemove('{\n\t"mcpServers": {\n\t\t"a": {}\n\t}\n}\n')).toBe(
      '{\n\t"mcpServers": {\n\t\t"a": {},\n\t\t"skill-central": {\n\t\t\t"command": "/opt/skill-central",\n\t\t\t"args": [\n\t\t\t\t"mcp",\n\t\t\t\t"--cwd",\n\t\t\t\t"${workspaceFolder}"\n\t\t\t]\n\t\t}\n\t}\n}\n',
    );
    const four = addThenRemove('{\n    "theme": "dark"\n}\n');
    expect(four).toStartWith(
      '{\n    "theme": "dark",\n    "mcpServers": {\n        "skill-central": {\n            "command"',
    );
    const crlf = addThenRemove('{\r\n  "mcpServers": {\r\n    "a": 1\r\n  }\r\n}\r\n');
    expect(crlf.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("a missing or empty file becomes a new document; an empty object gains the entry", () => {
    expect(doc("").with(PATH, ENTRY)).toBe(`${JSON.stringify({ mcpServers: { "skill-central": ENTRY } }, null, 2)}\n`);
    expect(addThenRemove("{}\n", "json")).toBe(
      `${JSON.stringify({ mcpServers: { "skill-central": ENTRY } }, null, 2)}\n`,
    );
    expect(doc('{\n  "mcpServers": {}\n}\n').with(PATH, ENTRY)).toBe(
      `${JSON.stringify({ mcpServers: { "skill-central": ENTRY } }, null, 2)}\n`,
    );
  });

  test("a one-line file stays on one line", () => {
    expect(addThenRemove('{"mcpServers": {"a": {"command": "x"}}}', "json")).toBe(
      `{"mcpServers": {"a": {"command": "x"}, "skill-central": ${JSON.stringify(ENTRY)}}}`,
    );
  });

  test("an object holding only comments keeps them below the new entry", () => {
    const added = addThenRemove('{\n  "mcpServers": {\n    // add servers here\n  }\n}\n');
    expect(added).toContain('"skill-central": {');
    expect(added.indexOf("// add servers here")).toBeGreaterThan(added.indexOf('"skill-central"'));
  });

  test("~/.claude.json-sized files: a 20,000-line file changes only where the entry goes", () => {
    const projects = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [
        `/home/u/p${i}`,
        { allowedTools: [], history: [`x${i}`], mcpServers: {} },
      ]),
    );
    const before = `${JSON.stringify({ numStartups: 3, projects, mcpServers: { other: { command: "o" } } }, null, 2)}\n`;
    const after = addThenRemove(before, "json");
    expect(after.slice(0, before.lastIndexOf('"other"'))).toBe(before.slice(0, before.lastIndexOf('"other"')));
  });
});

describe("replacing and removing", () => {
  test("--force replaces only the entry's value", () => {
    const before =
      '{\n  "mcpServers": {\n    "skill-central": { "command": "/old/skill-central" },\n    "b": 2\n  }\n}\n';
    const after = doc(before).with(PATH, ENTRY);
    expect(after).toBe(
      before.replace('{ "command": "/old/skill-central" }', JSON.stringify(ENTRY, null, 2).replace(/\n/g, "\n    ")),
    );
  });

  test("removal takes the entry's own lines and no others", () => {
    const first = '{\n  "mcpServers": {\n    "skill-central": {"command": "x"}, // ours\n    "b": 2\n  }\n}\n';
    expect(doc(first).with(PATH, undefined)).toBe('{\n  "mcpServers": {\n    "b": 2\n  }\n}\n');
    const last = '{\n  "mcpServers": {\n    "a": 1, // keep me\n    "skill-central": {"command": "x"}\n  }\n}\n';
    expect(doc(last).with(PATH, undefined)).toBe('{\n  "mcpServers": {\n    "a": 1 // keep me\n  }\n}\n');
    const only = '{"mcpServers": {"skill-central": {"command": "x"}}, "a": 1}';
    expect(doc(only, "json").with(PATH, undefined)).toBe('{"mcpServers": {}, "a": 1}');
  });

  test("removing an absent entry changes nothing", () => {
    const text = '{ "mcpServers": { "a": 1 } }';
    expect(doc(text).with(PATH, undefined)).toBe(text);
    expect(doc("").with(PATH, undefined)).toBe("");
  });
});

describe("files that cannot be edited safely", () => {
  test("strict JSON files report comments, trailing commas and other errors with line and column", () => {
    const cases: [string, string][] = [
      ['{\n  // note\n  "a": 1\n}', "2:3: comments are not allowed in this file"],
      ['{\n  "a": 1,\n}', "3:1: trailing comma (not allowed in this file)"],
      ['{\n  "a": 1\n  "b": 2\n}', "3:3: comma expected"],
      ['{"a": "unterminated\n}', "1:7: unterminated string"],
      ['{"a": 1} x', "1:10: unexpected character"],
    ];
    for (const [text, expected] of cases) {
      const result = parseJson(text, STRICT_JSON);
      expect(isSyntaxProblem(result) ? `${result.line}:${result.column}: ${result.message}` : "parsed").toBe(expected);
    }
    expect(isSyntaxProblem(parseJson('{\n  // note\n  "a": 1,\n}', JSONC))).toBe(false);
  });

  test("a top level that is not an object, or a parent that is not an object, is refused", () => {
    expect(() => doc("[]").with(PATH, ENTRY)).toThrow(EditRefused);
    expect(() => doc('{"mcpServers": []}').with(PATH, ENTRY)).toThrow('"mcpServers" is not an object');
    expect(() => doc("// only a comment\n").with(PATH, ENTRY)).toThrow("comments but no JSON value");
  });

  test("an entry defined twice is refused, because the edit would not read back as intended", () => {
    const twice = '{"mcpServers": {"skill-central": {"command": "a"}, "skill-central": {"command": "b"}}}';
    expect(() => doc(twice).with(PATH, undefined)).toThrow("defined twice");
  });
});

describe("property: random documents, random formatting", () => {
  const random = mulberry32(1907);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const key = () => pick(["a", "b", "github", "db", "x y", "ünï", "mcpServers2"]) + Math.floor(random() * 50);
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 2 || r < 0.3) return pick([1, "s", true, null, 'a"q', 2.5]);
    if (r < 0.5) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [key(), value(depth + 1)]));
  };
  const render = (v: unknown, indent: string, level: number): string => {
    if (!v || typeof v !== "object") return JSON.stringify(v);
    const inline = random() < 0.3;
    const pad = inline ? "" : `\n${indent.repeat(level + 1)}`;
    const end = inline ? "" : `\n${indent.repeat(level)}`;
    const comment = !inline && random() < 0.3 ? ` // note ${Math.floor(random() * 9)}` : "";
    const items = Array.isArray(v)
      ? v.map((x) => render(x, indent, level + 1))
      : Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${render(x, indent, level + 1)}`);
    if (items.length === 0) return Array.isArray(v) ? "[]" : "{}";
    const open = Array.isArray(v) ? "[" : "{";
    const close = Array.isArray(v) ? "]" : "}";
    return `${open}${pad}${items.join(`,${comment}${pad || " "}`)}${end}${close}`;
  };

  test("300 documents: the entry is added, reads back, and removing it restores the exact bytes", () => {
    for (let i = 0; i < 300; i++) {
      const root = value(0) as Record<string, unknown>;
      const data = root && typeof root === "object" && !Array.isArray(root) ? root : {};
      if (random() < 0.6)
        data.mcpServers = Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [key(), value(1)]));
      const text = render(data, pick(["  ", "    ", "\t"]), 0) + pick(["\n", "", "\n\n"]);
      try {
        addThenRemove(text);
      } catch (error) {
        throw new Error(`case ${i}:\n${text}\n${(error as Error).message}`);
      }
    }
  });

  test("editJson alone (without the read-back check) never produces text that fails to parse", () => {
    for (let i = 0; i < 100; i++) {
      const text = render({ mcpServers: { [key()]: value(1) }, [key()]: value(1) }, "  ", 0);
      const parsed = parseJson(text, JSONC);
      if (isSyntaxProblem(parsed)) throw new Error(text);
      expect(isSyntaxProblem(parseJson(editJson(parsed, PATH, ENTRY), JSONC))).toBe(false);
    }
  });
});

describe("a UTF-8 byte order mark (as VS Code-family editors save)", () => {
  const BOM = "\uFEFF";

  test("a JSONC, a strict JSON and a TOML file with a BOM are read; the edit keeps the BOM and every other byte", () => {
    const cases: [ConfigFormat, string, string[]][] = [
      [
        "jsonc",
        `${BOM}{\r\n\t// mine\r\n\t"mcpServers": {\r\n\t\t"memory": { "command": "npx" },\r\n\t},\r\n}\r\n`,
        PATH,
      ],
      ["json", `${BOM}{\n  "mcpServers": {}\n}\n`, PATH],
      ["toml", `${BOM}# Codex\nmodel = "o3"\n`, ["mcp_servers", "skill-central"]],
    ];
    for (const [format, text, path] of cases) {
      const added = doc(text, format).with(path, ENTRY);
      expect({ format, startsWithBom: added.startsWith(BOM), secondBom: added.indexOf(BOM, 1) }).toEqual({
        format,
        startsWithBom: true,
        secondBom: -1,
      });
      expect(doc(added, format).get(path)).toEqual(ENTRY);
      expect({ format, removed: doc(added, format).with(path, undefined) }).toEqual({ format, removed: text });
    }
  });

  test("an error in a file with a BOM is placed where an editor shows it (the BOM is not a column)", () => {
    expect(openConfig("jsonc", `${BOM}{\n  "a": 1\n  "b": 2\n}\n`)).toEqual({
      line: 3,
      column: 3,
      message: "comma expected",
    });
    expect(openConfig("jsonc", `${BOM}{ "a": 1 "b": 2 }`)).toEqual({ line: 1, column: 10, message: "comma expected" });
  });

  test("a BOM-only file is an empty document; the entry is written after the BOM", () => {
    const added = doc(BOM).with(PATH, ENTRY);
    expect(added.startsWith(`${BOM}{\n`)).toBe(true);
    expect(Bun.JSONC.parse(added.slice(1))).toEqual({ mcpServers: { "skill-central": ENTRY } });
  });
});
