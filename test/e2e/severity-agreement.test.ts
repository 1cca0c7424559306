import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";
import { ERRORS_TO_CHECKERS } from "../../src/commands/support/findings.ts";
import { SKILL_MD_LIMITS } from "../../src/skill/skill-md/parse-skill-md.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import type { FindingJson as Finding } from "../../src/commands/support/findings.ts";

/**
 * One severity model: `validate`, `doctor`, `test` and the server judge the same project the same
 * way. An error (a file that is not served, a withdrawn id, a failing example) fails all three
 * commands and is "skipped" in the server's log; a warning fails none (only `validate --strict`).
 */
const BROKEN: Record<string, string> = {
  "skill-central.yaml":
    "builtin: false\nlayrs: []\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n  - { name: gone, path: ./gone, priority: 10 }\n  - { name: empty, path: ./empty, priority: 5 }\n",
  "empty/_draft.yaml": "not: a skill\n",
  // An error: bad YAML.
  ".skills/bad-yaml.yaml": "id: bad-yaml\ndescription: [oops\n",
  // An error and a warning in one file: the server logs one line, validate two.
  ".skills/bad-type.yaml":
    "id: bad-type\ndescripton: d\ndescription: A prompt whose type is misspelled\ntype: promt\nprompt: x\n",
  // Warnings only: served.
  ".skills/typo.yaml":
    "id: typo\ndescription: Greets someone, with a typo in an argument\ntype: prompt\ntags: [solo]\narguments:\n  - { name: who, requried: true }\nprompt: 'Hi {{who}} {{whom}}'\n",
  // A conflict in the winning layer: the id is withdrawn (an error).
  ".skills/dup-a.yaml": "id: dup\ndescription: A\ntype: prompt\nprompt: A\n",
  ".skills/dup-b.yaml": "id: dup\ndescription: B\ntype: prompt\nprompt: B\n",
  // A failing example: served, but not as its author says.
  "team/fails.yaml":
    "id: fails\ndescription: Prints a word other than its example expects\ntype: prompt\nprompt: actual\nexamples:\n  - arguments: {}\n    expect: expected\n",
  "team/fine.yaml":
    "id: fine\ndescription: Prints one word exactly as its example says\ntype: prompt\nprompt: fine\nexamples:\n  - arguments: {}\n    expect: fine\n",
};

interface ValidateJson {
  ok: boolean;
  errors: number;
  warnings: number;
  problems: Finding[];
}

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(BROKEN);
});
afterAll(() => fixture.cleanup());

const files = (findings: readonly Finding[], severity: string) =>
  [...new Set(findings.filter((f) => f.severity === severity && f.file).map((f) => f.file!))].sort();

describe("a broken project", () => {
  let validate: ValidateJson;
  let doctor: ValidateJson;
  let codes: { validate: number; doctor: number; test: number; strict: number };
  let testStderr: string;
  let serverLog: string[];

  beforeAll(async () => {
    const [v, d, t, s] = await Promise.all([
      runCliJson<ValidateJson>(["validate"], fixture.cwd, fixture.home),
      runCliJson<ValidateJson>(["doctor"], fixture.cwd, fixture.home),
      runCli(["test"], fixture.cwd, fixture.home),
      runCli(["validate", "--strict"], fixture.cwd, fixture.home),
    ]);
    validate = v.json;
    doctor = d.json;
    codes = { validate: v.code, doctor: d.code, test: t.code, strict: s.code };
    testStderr = t.stderr;
    const server = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      await server.client.listPrompts(); // answered once the first load is in, after its log lines
      serverLog = server
        .stderr()
        .trimEnd()
        .split("\n")
        .map((l) => l.replace(/^\[skill-central\] /, ""));
    } finally {
      await server.close();
    }
  });

  test("validate, doctor and test all exit 1", () => {
    expect(codes).toEqual({ validate: 1, doctor: 1, test: 1, strict: 1 });
    expect(validate.ok).toBe(false);
    expect(doctor.ok).toBe(false);
  });

  test("doctor's findings are validate's, in the same order with the same severity, rule, place and text, the whole-project ones included", () => {
    expect(doctor.problems).toEqual(validate.problems);
    expect(
      validate.problems.filter((f) => f.rule === "layer-empty" || f.rule === "tags-compose-with-nothing").length,
    ).toBe(2);
    expect(doctor.errors).toBe(validate.errors);
  });

  test("validate's verdict names every kind of error: bad YAML, a bad field, a withdrawn id, a failing example", () => {
    expect(validate.problems.filter((f) => f.severity === "error").map((f) => [f.file, f.rule])).toEqual([
      [".skills/bad-type.yaml", "invalid-type"],
      [".skills/bad-yaml.yaml", "yaml-syntax"],
      [".skills/dup-a.yaml", "duplicate-id"],
      ["team/fails.yaml", "example-failed"],
    ]);
    expect(files(validate.problems, "warning")).toEqual([
      ".skills/bad-type.yaml",
      ".skills/typo.yaml",
      "skill-central.yaml",
    ]);
    // In the file with a bad type, the misspelt "descripton" is a warning too (the right key is also there).
    expect(validate.problems.filter((f) => f.file === ".skills/bad-type.yaml").map((f) => f.rule)).toEqual([
      "unknown-field",
      "invalid-type",
    ]);
  });

  test("the server skips exactly the files validate calls broken, logs the same first finding, and warns about the rest", () => {
    const loadErrors = validate.problems.filter(
      (f) => f.severity === "error" && f.rule !== "example-failed" && f.rule !== "duplicate-id",
    );
    for (const f of loadErrors) {
      expect(serverLog).toContainEqual(
        expect.stringContaining(`${f.file}:${f.line}:${f.column}: error: skipped: ${f.message}`),
      );
    }
    // A file with warnings only is served, and the server says why it may not be what was meant.
    expect(serverLog).toContainEqual(expect.stringMatching(/^\.skills\/typo\.yaml:\d+:\d+: warning: /));
    // Findings about no single file's content (config, layers, resolution) are the same lines.
    for (const f of validate.problems.filter(
      (p) => p.rule === "config" || p.rule === "layer-missing" || p.rule === "duplicate-id",
    )) {
      const place = f.line === undefined ? "" : `:${f.line}:${f.column}`;
      expect(serverLog).toContain(`${f.file}${place}: ${f.severity}: ${f.message}${f.hint ? ` — ${f.hint}` : ""}`);
    }
    const skipped = serverLog
      .filter((l) => l.includes(": error: skipped: "))
      .map((l) => l.slice(0, l.indexOf(":")))
      .sort();
    expect(skipped).toEqual([".skills/bad-type.yaml", ".skills/bad-yaml.yaml"]);
  });

  test("test prints the load's findings exactly as the server logs them", () => {
    const loadLines = testStderr.trimEnd().split("\n").slice(0, -1);
    expect(loadLines.length).toBeGreaterThan(3);
    expect(loadLines).toEqual(serverLog.filter((l) => /: (error|warning|note): /.test(l)));
    expect(testStderr).toEndWith(
      "while loading (above, one line per file; `skill-central validate` lists each with its position)\n",
    );
  });
});

describe("the same project with its errors fixed", () => {
  let fixed: Fixture;
  beforeAll(() => {
    const files = { ...BROKEN };
    for (const name of [".skills/bad-yaml.yaml", ".skills/bad-type.yaml", ".skills/dup-b.yaml", "team/fails.yaml"])
      delete files[name];
    fixed = makeFixture(files);
  });
  afterAll(() => fixed.cleanup());

  test("warnings alone: validate, doctor and test exit 0; validate --strict exits 1", async () => {
    const [validate, doctor, tested, strict] = await Promise.all([
      runCli(["validate"], fixed.cwd, fixed.home),
      runCli(["doctor"], fixed.cwd, fixed.home),
      runCli(["test"], fixed.cwd, fixed.home),
      runCli(["validate", "--strict"], fixed.cwd, fixed.home),
    ]);
    expect([validate.code, doctor.code, tested.code, strict.code]).toEqual([0, 0, 0, 1]);
    expect(strict.stderr).toContain("(--strict: warnings fail)");
    expect(validate.stdout).toBe(strict.stdout);
  });
});

/**
 * What the docs say a finding's severity is, held to what the code gives: each case names a page,
 * the words that describe the finding there, and a file that has exactly that finding. The page's
 * claim is read from the page (the list it sits in, or the words "served, with a warning" and
 * "`validate` … an error" beside it); the code's answer is read from the server's load report
 * (`list` prints it as the server logs it), `validate --json` and `validate --strict --json`. The
 * files are built from the code's own limits (SKILL_MD_LIMITS), and every finding the checkers
 * promote (ERRORS_TO_CHECKERS) must be one of the cases, so a new one cannot go undocumented.
 */
type Severity = "error" | "warning" | "note";
interface DocCase {
  page: string;
  /** Words of the page that describe the finding (whitespace as in a reflowed paragraph). */
  phrase: string;
  /** The file (as `validate` shows it) that has the finding, and its rule where the file has several. */
  file: string;
  rule?: string;
}

const PURPOSE = "Reviews a pull request for bugs and style before merging";
const folderSkill = (name: string, frontmatter: string, body = "Check the diff.\n") =>
  `---\nname: ${name}\ndescription: ${PURPOSE}\n${frontmatter}---\n${body}`;
const DOCUMENTED: Record<string, string> = {
  "skill-central.yaml":
    "builtin: false\nlayers:\n  - { name: project, path: ./.skills, priority: 100 }\n  - { name: empty, path: ./empty, priority: 5 }\n  - { name: gone, path: ./gone, priority: 6 }\n",
  "empty/_draft.yaml": "not: a skill\n",
  ".skills/nofm/SKILL.md": "just text\n",
  ".skills/noname/SKILL.md": `---\ndescription: ${PURPOSE}\n---\nb\n`,
  ".skills/longdesc/SKILL.md": `---\nname: longdesc\ndescription: ${PURPOSE} ${"d".repeat(SKILL_MD_LIMITS.description)}\n---\nb\n`,
  ".skills/folder/SKILL.md": folderSkill("other-name", ""),
  ".skills/unknown/SKILL.md": folderSkill("unknown", "foo: 1\n"),
  ".skills/longbody/SKILL.md": folderSkill("longbody", "", "l\n".repeat(SKILL_MD_LIMITS.bodyLines + 1)),
  ".skills/shell/SKILL.md": folderSkill("shell", "", "Now: !`git log -1`\n"),
  ".skills/colon/SKILL.md":
    "---\nname: colon\ndescription: Reviews a pull request: bugs and style before merging\n---\nb\n",
  ".skills/hidden/SKILL.md": folderSkill("hidden", ""),
  ".skills/hidden/.notes": "x\n",
  ".skills/dup-a.yaml": `id: dup\ndescription: ${PURPOSE}\ntype: prompt\ntags: [review]\nprompt: A\n`,
  ".skills/dup-b.yaml": `id: dup\ndescription: ${PURPOSE}\ntype: prompt\ntags: [review]\nprompt: B\n`,
  ".skills/key.yaml": `id: key\ndescription: Greets a colleague by name before the weekly meeting\ntype: prompt\ncolour: red\ntags: [review]\nprompt: "Hi"\n`,
  ".skills/variable.yaml": `id: variable\ndescription: Greets a colleague by name before the planning meeting\ntype: prompt\ntags: [review]\narguments:\n  - { name: who }\nprompt: "Hi {{who}} {{whom}}"\n`,
  ".skills/unused.yaml": `id: unused\ndescription: Greets a colleague by name before the retrospective meeting\ntype: prompt\ntags: [review]\narguments:\n  - { name: who }\n  - { name: extra }\nprompt: "Hi {{who}}"\n`,
  ".skills/lonely.yaml": `id: lonely\ndescription: Thanks a colleague warmly after the weekly planning meeting\ntype: prompt\ntags: [solo]\nprompt: Thanks\n`,
};

const DOC_CASES: readonly DocCase[] = [
  { page: "docs/agent-skills.md", phrase: "no frontmatter", file: ".skills/nofm/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "`name` missing", file: ".skills/noname/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "a description over 1,024 characters", file: ".skills/longdesc/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "a folder named unlike `name`", file: ".skills/folder/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "unknown fields", file: ".skills/unknown/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "a body over 500 lines", file: ".skills/longbody/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "`` !`command` `` in the body", file: ".skills/shell/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "an unquoted `: ` in a value", file: ".skills/colon/SKILL.md" },
  { page: "docs/agent-skills.md", phrase: "each hidden name left out of a folder", file: ".skills/hidden/.notes" },
  { page: "docs/cli.md", phrase: "an id two files of its winning layer both define", file: ".skills/dup-a.yaml" },
  { page: "docs/cli.md", phrase: "an unknown key", file: ".skills/key.yaml" },
  { page: "docs/cli.md", phrase: "a template variable no argument declares", file: ".skills/variable.yaml" },
  { page: "docs/cli.md", phrase: "an argument no template uses", file: ".skills/unused.yaml" },
  { page: "docs/cli.md", phrase: "missing or empty layer folder", file: "skill-central.yaml", rule: "layer-missing" },
  { page: "docs/cli.md", phrase: "missing or empty layer folder", file: "skill-central.yaml", rule: "layer-empty" },
  { page: "docs/cli.md", phrase: "a prompt whose tags no other prompt shares", file: ".skills/lonely.yaml" },
  { page: "docs/cli.md", phrase: "a hidden file left out of a skill folder", file: ".skills/hidden/.notes" },
  { page: "docs/cli.md", phrase: "description over the Agent Skills limit", file: ".skills/longdesc/SKILL.md" },
  { page: "docs/limits.md", phrase: "A `SKILL.md` `description`", file: ".skills/longdesc/SKILL.md" },
  { page: "docs/limits.md", phrase: "A `SKILL.md` body", file: ".skills/longbody/SKILL.md" },
  {
    page: "docs/catalog.md",
    phrase: "SKILL.md `description` over the Agent Skills",
    file: ".skills/longdesc/SKILL.md",
  },
  {
    page: "docs/skills-extension.md",
    phrase: "A description over the Agent Skills limit",
    file: ".skills/longdesc/SKILL.md",
  },
];

/** Markers of a page's lists of findings by severity, and the severity each stands for. */
const SECTIONS: readonly [RegExp, Severity][] = [
  [/^Stops the skill\b/, "error"],
  [/^Warnings \(the skill is served\)/, "warning"],
  [/^Notes \(never a failure\)/, "note"],
  [/^- \*\*(error)\*\*/, "error"],
  [/^- \*\*(warning)\*\*/, "warning"],
  [/^- \*\*(note)\*\*/, "note"],
];

interface Claim {
  served?: Severity;
  checked?: Severity;
  strict?: Severity;
}

/** What `page` says of the finding `phrase` describes: in the server's log, from `validate`, and under `--strict`. */
function claimOf(markdown: string, phrase: string): Claim {
  const lines = markdown.split("\n");
  // Blocks: a list item with its continuation lines, a table row, or a paragraph; joined to one line.
  const blocks: { text: string; start: number }[] = [];
  lines.forEach((line, i) => {
    const continues = /^\s+\S/.test(line) && blocks.length > 0 && i > 0 && lines[i - 1]!.trim() !== "";
    const plain = line.trim() !== "" && !line.startsWith("- ") && !line.startsWith("|") && !line.startsWith("#");
    const paragraphGoesOn = plain && i > 0 && lines[i - 1]!.trim() !== "" && !lines[i - 1]!.startsWith("|");
    if (continues || paragraphGoesOn) blocks[blocks.length - 1]!.text += ` ${line.trim()}`;
    else if (line.trim() !== "") blocks.push({ text: line.trim(), start: i });
  });
  const block = blocks.find((b) => b.text.includes(phrase));
  if (!block) throw new Error(`the page no longer says "${phrase}"`);
  // The clause about this finding, where one list item names several (`a; b; c`), or a table's row.
  const clause = block.text.startsWith("|")
    ? block.text
    : (block.text.split(/;\s/).find((c) => c.includes(phrase)) ?? block.text);
  // The list it is in: its own marker (`- **warning**: …`), or the line that opens the list above it.
  const sectionOf = (line: string) => SECTIONS.find(([marker]) => marker.test(line))?.[1];
  let section = sectionOf(lines[block.start]!);
  for (let i = block.start - 1; i >= 0 && section === undefined && block.text.startsWith("- "); i--) {
    const line = lines[i]!;
    if (line.trim() === "" || line.startsWith("- ") || /^\s/.test(line)) continue;
    section = sectionOf(line);
    break;
  }
  const said = (pattern: RegExp) => pattern.exec(clause)?.[1] as Severity | undefined;
  const served = /\b(?:[Ss]erved,? with a|serves it, with a|server logs a) (warning)\b/.test(clause)
    ? "warning"
    : section;
  // In the same sentence (a period that ends one is followed by a space: `SKILL.md` does not end it).
  const checked = said(/`validate`(?:(?!\.\s)[^;|])*?\b(error|warning|note)\b/) ?? section;
  const strict =
    said(/\ban? (error|warning|note) under `validate --strict`/) ?? (checked === "error" ? "error" : undefined);
  return { ...(served && { served }), ...(checked && { checked }), ...(strict && { strict }) };
}

describe("the severity the docs name for a finding is the one the code gives", () => {
  let documented: Fixture;
  let servedBy: (file: string) => Severity | undefined;
  let checked: Finding[];
  let strict: Finding[];

  beforeAll(async () => {
    documented = makeFixture(DOCUMENTED);
    const [list, validate, strictRun] = await Promise.all([
      runCli(["list"], documented.cwd, documented.home),
      runCliJson<ValidateJson>(["validate"], documented.cwd, documented.home),
      runCliJson<ValidateJson>(["validate", "--strict"], documented.cwd, documented.home),
    ]);
    // The load report, as the server logs it: one line per file, its first finding's severity.
    const report = list.stderr.trimEnd().split("\n");
    servedBy = (file) =>
      report
        .map((l) =>
          new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?::\\d+:\\d+)?: (error|warning|note): `).exec(l),
        )
        .find(Boolean)?.[1] as Severity | undefined;
    checked = validate.json.problems;
    strict = strictRun.json.problems;
  });
  afterAll(() => documented.cleanup());

  const findingOf = (problems: readonly Finding[], c: DocCase) => {
    const found = problems.filter((p) => p.file === c.file && (c.rule === undefined || p.rule === c.rule));
    if (found.length !== 1) throw new Error(`${c.file}: ${found.length} findings, not one: ${JSON.stringify(found)}`);
    return found[0]!;
  };

  for (const c of DOC_CASES) {
    test(`${c.page}: "${c.phrase}"`, () => {
      const claim = claimOf(readFileSync(join(REPO_ROOT, c.page), "utf8"), c.phrase);
      expect(Object.keys(claim).length).toBeGreaterThan(0);
      const code: Claim = {};
      if (claim.served !== undefined) code.served = servedBy(c.file) ?? findingOf(checked, c).severity;
      if (claim.checked !== undefined) code.checked = findingOf(checked, c).severity;
      if (claim.strict !== undefined) code.strict = findingOf(strict, { ...c, rule: undefined }).severity;
      expect(claim).toEqual(code);
    });
  }

  test("every finding the checkers hold stricter than the server is documented, and none other parts them", () => {
    const parted = checked
      .filter((p) => p.file !== undefined && servedBy(p.file) === "warning" && p.severity === "error")
      .map((p) => p.rule);
    expect(new Set(parted)).toEqual(new Set(ERRORS_TO_CHECKERS));
    for (const rule of ERRORS_TO_CHECKERS) {
      const files = checked.filter((p) => p.rule === rule).map((p) => p.file);
      const cases = DOC_CASES.filter((c) => files.includes(c.file));
      // The pages that name its severity: the format's page, the CLI's severity model and the limits.
      expect([...new Set(cases.map((c) => c.page))]).toEqual(
        expect.arrayContaining(["docs/agent-skills.md", "docs/cli.md", "docs/limits.md"]),
      );
      // A page that names it says both: served with a warning, and an error to `validate`.
      for (const c of cases) {
        expect([c.page, claimOf(readFileSync(join(REPO_ROOT, c.page), "utf8"), c.phrase)]).toEqual([
          c.page,
          expect.objectContaining({ served: "warning", checked: "error" }),
        ]);
      }
    }
  });

  test("the claim reader finds what a page says", () => {
    const page = [
      "Stops the skill:",
      "",
      "- alpha; beta",
      "",
      "Warnings (the skill is served):",
      "",
      "- gamma (served, but `validate` and `doctor` report it as an error); delta",
      "",
      "| Limit | Value | Past it |",
      "| epsilon | 1 | Served, with a warning; an error under `validate --strict`. |",
    ].join("\n");
    expect(claimOf(page, "beta")).toEqual({ served: "error", checked: "error", strict: "error" });
    expect(claimOf(page, "gamma")).toEqual({ served: "warning", checked: "error", strict: "error" });
    expect(claimOf(page, "delta")).toEqual({ served: "warning", checked: "warning" });
    expect(claimOf(page, "epsilon")).toEqual({ served: "warning", strict: "error" });
    expect(() => claimOf(page, "zeta")).toThrow('the page no longer says "zeta"');
  });
});
