/**
 * `skill-central overlap` and the checks issue 41 added to `validate`, through the real CLI: pairs
 * of skills that compete (text, the pinned `--json` shape, `--min`), `competing-skills` naming the
 * other file, and a SKILL.md description over the Agent Skills limit failing `validate`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import { lookalikeFiles } from "../helpers/lookalike-skills.ts";

const prompt = (id: string, description: string, tags: string[]) =>
  `id: ${id}\ndescription: ${description}\ntype: prompt\ntags: [${tags.join(", ")}]\nprompt: Go\n`;

const FILES: Record<string, string> = {
  // The built-in skills are left out: the pairs are this project's alone.
  "skill-central.yaml": "builtin: false\n",
  ".skills/sql-helper.yaml": prompt("sql-helper", "Write and fix SQL queries against the team database", ["sql"]),
  ".skills/db-questions.yaml": prompt("db-questions", "Answer questions about the database and its queries", [
    "database",
  ]),
  ".skills/paint-walls.yaml": prompt("paint-walls", "Choose paint colours for the walls of a room", ["home"]),
  ".skills/room-plan.yaml": prompt("room-plan", "Plan the furniture of a room before moving in", ["home"]),
};

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);

interface Pairs {
  pairs: { a: string; b: string; score: number }[];
}

describe("overlap", () => {
  test("--json: { pairs: [{ a, b, score }] }, highest score first, a before b; --min 0 lists every pair sharing a word", async () => {
    const { code, json } = await runCliJson<Pairs>(["overlap", "--min", "0"], fixture.cwd, fixture.home);
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(["pairs"]);
    for (const p of json.pairs) {
      expect(Object.keys(p)).toEqual(["a", "b", "score"]);
      expect(p.a < p.b).toBe(true);
      expect(p.score).toBeGreaterThan(0);
      expect(p.score).toBeLessThanOrEqual(1);
    }
    const scores = json.pairs.map((p) => p.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    // The SQL pair (synonyms sql/query/database folded) first; the two room skills share "room" and a tag.
    expect(json.pairs.map((p) => `${p.a} ${p.b}`)).toEqual(["db-questions sql-helper", "paint-walls room-plan"]);
    expect(json.pairs[0]!.score).toBeGreaterThan(json.pairs[1]!.score);
  });

  test("the default --min is validate's threshold; --min filters; text is one line per pair, the count on stderr", async () => {
    const all = (await runCliJson<Pairs>(["overlap", "--min", "0"], fixture.cwd, fixture.home)).json.pairs;
    const [top, second] = all;
    const between = (top!.score + second!.score) / 2;
    const filtered = await runCliJson<Pairs>(["overlap", "--min", String(between)], fixture.cwd, fixture.home);
    expect(filtered.json.pairs).toEqual([top!]);
    const byDefault = await runCliJson<Pairs>(["overlap"], fixture.cwd, fixture.home);
    expect(byDefault.json.pairs).toEqual(all.filter((p) => p.score >= 0.3));

    const text = await cli("overlap", "--min", "0");
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      `${top!.score.toFixed(3)}  db-questions  sql-helper\n${second!.score.toFixed(3)}  paint-walls   room-plan\n`,
    );
    expect(text.stderr).toContain("2 pairs at or above 0");

    const none = await cli("overlap", "--min", "1");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("no pairs of skills score 1 or more\n");
  });

  test("a --min that is not a score from 0 to 1 is a usage error (exit 2)", async () => {
    for (const bad of ["abc", "1.5", "-0.1", ""]) {
      const result = await cli("overlap", `--min=${bad}`);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("--min must be a score from 0 to 1");
    }
  });
});

describe("validate: skills that compete, descriptions that cannot be chosen by", () => {
  test("competing-skills is a warning on each file of the pair, naming the other skill and its file", async () => {
    const result = await cli("validate");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const competing = lines.filter((l) => l.includes("competing-skills") || l.includes("may compete"));
    expect(competing).toHaveLength(2);
    expect(competing[0]).toMatch(
      /^\.skills\/db-questions\.yaml:2:14: warning: "db-questions" may compete with "sql-helper" \(\.skills\/sql-helper\.yaml\) for the same requests: overlap score 0\.\d+, at or above 0\.3 — /,
    );
    expect(competing[1]).toMatch(
      /^\.skills\/sql-helper\.yaml:2:14: warning: "sql-helper" may compete with "db-questions" \(\.skills\/db-questions\.yaml\) for the same requests/,
    );
    // The room pair scores under the threshold: no warning.
    expect(result.stdout).not.toContain("paint-walls");
  });

  test("--json gives the rule as competing-skills; a vague description is vague-description", async () => {
    const vague = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/helper.yaml": prompt("helper", "SQL stuff", []),
    });
    try {
      const { code, json } = await runCliJson<{
        warnings: number;
        problems: { rule: string; file: string; message: string }[];
      }>(["validate"], vague.cwd, vague.home);
      expect(code).toBe(0);
      expect(json.problems).toEqual([
        expect.objectContaining({
          rule: "vague-description",
          file: ".skills/helper.yaml",
          message:
            'the description of "helper" is too vague to choose by: 2 words, too few to say what "helper" does or when to use it',
        }),
      ]);
      const competing = await runCliJson<{ problems: { rule: string; file: string }[] }>(
        ["validate"],
        fixture.cwd,
        fixture.home,
      );
      expect(competing.json.problems.filter((p) => p.rule === "competing-skills").map((p) => p.file)).toEqual([
        ".skills/db-questions.yaml",
        ".skills/sql-helper.yaml",
      ]);
    } finally {
      vague.cleanup();
    }
  });

  test("a SKILL.md description over 1,024 characters is an error: validate exits 1", async () => {
    const description = `Review a change for the team's conventions. ${"Say more about it. ".repeat(60)}`.trim();
    expect(description.length).toBeGreaterThan(1024);
    const long = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/long/SKILL.md": `---\nname: long\ndescription: ${description}\n---\nReview it.\n`,
    });
    try {
      const result = await runCli(["validate"], long.cwd, long.home);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe(
        `.skills/long/SKILL.md:3:14: error: "description" is ${description.length} characters, over the specification's 1024 — some hosts refuse it: shorten it, or move detail to the body\n`,
      );
      expect(result.stderr).toContain("1 error");
      // The same description at the limit is fine.
      const atLimit = description.slice(0, 1024).trimEnd();
      await Bun.write(
        `${long.cwd}/.skills/long/SKILL.md`,
        `---\nname: long\ndescription: ${atLimit}\n---\nReview it.\n`,
      );
      const ok = await runCli(["validate"], long.cwd, long.home);
      expect(ok.stdout).toBe("");
      expect(ok.code).toBe(0);
    } finally {
      long.cleanup();
    }
  });
});

describe("look-alike catalogs (issue 46): validate's output and overlap's work stay bounded", () => {
  test("validate on 1,000 look-alikes: at most 10 competing-skills lines per file, then one line counting the rest", async () => {
    const many = makeFixture({ "skill-central.yaml": "builtin: false\n", ...lookalikeFiles(1000, ".skills") });
    try {
      const result = await runCli(["validate"], many.cwd, many.home);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split("\n");
      const byFile = Map.groupBy(lines, (l) => l.slice(0, l.indexOf(":")));
      expect(byFile.size).toBe(1000);
      for (const [file, found] of byFile) {
        const id = file.slice(".skills/".length, -".yaml".length);
        expect(found.length).toBeLessThanOrEqual(11);
        const counted = found.filter((l) => l.includes("…and "));
        expect(counted).toHaveLength(1);
        expect(counted[0]).toMatch(
          new RegExp(
            `^${file.replace(/\./g, "\\.")}:2:14: warning: …and \\d+ more skills compete with "${id}" at or above 0\\.3, not listed \\(\\d+ in all; the strongest 10 are above\\) — `,
          ),
        );
        expect(found.at(-1)).toBe(counted[0]);
      }
      expect(lines.length).toBeLessThanOrEqual(11_000);
    } finally {
      many.cleanup();
    }
  }, 120_000);

  test("overlap --min 0 on 2,000 look-alikes (1.1 million pairs, which overflowed the stack) lists each skill's 10 strongest and counts the rest", async () => {
    const many = makeFixture({ "skill-central.yaml": "builtin: false\n", ...lookalikeFiles(2000, ".skills") });
    try {
      const text = await runCli(["overlap", "--min", "0"], many.cwd, many.home);
      expect(text.stderr).not.toContain("Maximum call stack");
      expect(text.code).toBe(0);
      const listed = text.stdout.trimEnd().split("\n").length;
      expect(listed).toBeLessThanOrEqual(2000 * 10);
      const more = /^(\d+) more pairs at or above 0 not listed: only each skill's 10 strongest are$/m.exec(text.stderr);
      expect(more).not.toBeNull();
      expect(listed + Number(more![1])).toBeGreaterThan(1_000_000);
      const json = await runCliJson<Pairs & { unlisted?: number }>(["overlap", "--min", "0"], many.cwd, many.home);
      expect(json.json.pairs).toHaveLength(listed);
      expect(json.json.unlisted).toBe(Number(more![1]));
    } finally {
      many.cleanup();
    }
  }, 180_000);
});
