import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../../src/invoke/limits.ts";
import { SKILL_MD_LIMITS } from "../../src/skill/skill-md/parse-skill-md.ts";
import { DEFAULT_LIMITS } from "../../src/sources/tree-entries.ts";
import { FOLDER_LIMITS } from "../../src/storage/discover.ts";

/**
 * docs/limits.md names, for each value it gives, the constant it documents. Every one is read
 * from the code and compared, so changing a limit without the page (or the page without the code)
 * fails here.
 */
const REPO_ROOT = join(import.meta.dir, "..", "..");
const PAGE = readFileSync(join(REPO_ROOT, "docs", "limits.md"), "utf8");

/** What each unit the page uses is worth in the constant's own unit (bytes, milliseconds, a count). */
const UNITS: Record<string, number> = {
  KiB: 1024,
  MiB: 1024 * 1024,
  ms: 1,
  s: 1000,
  min: 60_000,
  days: 86_400_000,
  levels: 1,
  values: 1,
  findings: 1,
  characters: 1,
  bytes: 1,
  steps: 1,
  sessions: 1,
  files: 1,
  problems: 1,
  lines: 1,
  skills: 1,
  tools: 1,
  bodies: 1,
  requests: 1,
  uses: 1,
};

interface Row {
  limit: string;
  value: string;
  constant: string;
  module: string;
}

/** The rows of every `| Limit | Value | Past it | Constant |` table. */
function rows(markdown: string): Row[] {
  const found: Row[] = [];
  let inTable = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("| Limit | Value | Past it | Constant |")) {
      inTable = true;
      continue;
    }
    if (!line.startsWith("|")) {
      inTable = false;
      continue;
    }
    if (!inTable || line.startsWith("|---")) continue;
    const cells = line
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim());
    expect({ line, cells: cells.length }).toEqual({ line, cells: 4 });
    const source = /^`([A-Za-z_][\w.]*)` \((src\/[\w/.-]+\.ts)\)$/.exec(cells[3]!);
    if (!source)
      throw new Error(`the Constant cell of "${cells[0]}" must read \`NAME\` (src/…/file.ts), not: ${cells[3]}`);
    found.push({ limit: cells[0]!, value: cells[1]!, constant: source[1]!, module: source[2]! });
  }
  return found;
}

function parseValue(text: string): number {
  const match = /^(\d[\d,]*(?:\.\d+)?) (\S+)$/.exec(text);
  if (!match) throw new Error(`a value must be a number and a unit, not "${text}"`);
  const factor = UNITS[match[2]!];
  if (factor === undefined)
    throw new Error(`unknown unit "${match[2]}" in "${text}" (known: ${Object.keys(UNITS).join(", ")})`);
  return Number(match[1]!.replace(/,/g, "")) * factor;
}

async function constantValue(row: Row): Promise<unknown> {
  const path = join(REPO_ROOT, row.module);
  if (!existsSync(path)) throw new Error(`${row.module} (named for "${row.limit}") does not exist`);
  const module = (await import(path)) as Record<string, unknown>;
  return row.constant
    .split(".")
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], module);
}

const table = rows(PAGE);

/**
 * The README's short table (`| Limit | Value |`, in "Broken files and limits") repeats a few of
 * these values for a newcomer; each of its values ("a / b", "a, b") is one constant's, in order.
 */
const README_ROWS: Record<string, string[]> = {
  "A skill file (YAML, JSON, `SKILL.md`)": ["MAX_SKILL_FILE_BYTES"],
  "Nesting inside a skill file (its `inputSchema` included)": ["MAX_DOCUMENT_DEPTH"],
  "A skill folder": ["FOLDER_LIMITS.files", "FOLDER_LIMITS.bytes"],
  "A call's arguments / their nesting": ["LIMITS.argumentChars", "LIMITS.argumentDepth"],
  "One result (a rendered prompt, a tool's text)": ["LIMITS.resultChars"],
  "Checking a call against a `pattern` that may backtrack": ["GUARDED_LIMIT_MS"],
  "One stdio frame / one HTTP request body": ["MAX_FRAME_BYTES", "MAX_BODY_BYTES"],
};

function readmeRows(): [string, string][] {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Broken files and limits"));
  const body = section.slice(0, section.indexOf("\n## ", 1));
  const start = body.indexOf("| Limit | Value |");
  if (start < 0) return [];
  const out: [string, string][] = [];
  for (const line of body.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim());
    out.push([cells[0]!, cells[1]!]);
  }
  return out;
}

describe("docs/limits.md", () => {
  test("has its tables", () => {
    expect(table.length).toBeGreaterThan(30);
  });

  for (const row of table) {
    test(`${row.limit}: ${row.value} is ${row.constant}`, async () => {
      const actual = await constantValue(row);
      expect(typeof actual).toBe("number");
      expect({ constant: row.constant, value: parseValue(row.value) }).toEqual({
        constant: row.constant,
        value: actual as number,
      });
    });
  }

  test("the README's table of common limits gives the same values as the code", () => {
    const found = readmeRows();
    expect(found.map(([limit]) => limit)).toEqual(Object.keys(README_ROWS));
    for (const [limit, value] of found) {
      const constants = README_ROWS[limit]!;
      const parts = value
        .split(constants.length > 1 && value.includes(" / ") ? " / " : ", ")
        .map((p) => p.replace(/ of CPU$/, ""));
      expect({ limit, parts: parts.length }).toEqual({ limit, parts: constants.length });
      constants.forEach((name, i) => {
        const row = table.find((r) => r.constant === name);
        if (!row) throw new Error(`${name} (README: "${limit}") is not in docs/limits.md`);
        expect({ limit, name, value: parts[i] }).toEqual({ limit, name, value: row.value });
      });
    }
  });

  test("documents every member of the limit tables: calls, git trees, skill folders, SKILL.md", () => {
    const documented = new Set(table.map((r) => r.constant));
    const groups: [string, object][] = [
      ["LIMITS", LIMITS],
      ["DEFAULT_LIMITS", DEFAULT_LIMITS],
      ["FOLDER_LIMITS", FOLDER_LIMITS],
      ["SKILL_MD_LIMITS", SKILL_MD_LIMITS],
    ];
    for (const [name, group] of groups)
      for (const key of Object.keys(group)) expect(documented).toContain(`${name}.${key}`);
  });

  test("documents the limits users meet at the edges: files, nesting, frames, HTTP, the regex guard, quoting", () => {
    const documented = new Set(table.map((r) => r.constant));
    for (const name of [
      "MAX_SKILL_FILE_BYTES",
      "MAX_DOCUMENT_DEPTH",
      "MAX_ALIAS_EXPANSION",
      "GUARDED_LIMIT_MS",
      "PROOF_BUDGET.timeoutMs",
      "MAX_FRAME_BYTES",
      "MAX_ID_BYTES",
      "MAX_BODY_BYTES",
      "DEFAULT_MAX_SESSIONS",
      "DEFAULT_SESSION_IDLE_MS",
      "MAX_QUOTED_CHARS",
      "MAX_MESSAGE_CHARS",
      "MAX_ECHOED_URI_CHARS",
      "MAX_REQUESTS_IN_FLIGHT",
      "MAX_SESSION_REQUESTS_IN_FLIGHT",
      "MAX_QUEUED_ANSWER_BYTES",
      "MAX_STDIO_REQUESTS_IN_FLIGHT",
      "MAX_STDIO_QUEUED_OUTPUT_BYTES",
      "MAX_RECORDED_CHARS",
    ]) {
      expect(documented).toContain(name);
    }
  });
});
