/**
 * `skill-central eval` (routing, issue 52) through the real CLI: trigger sets found beside a
 * skill file and in a folder's evals/, ranked over the whole catalog; the text table and the
 * `--json` shape; `--min-recall`, `--trigger-set`, `--workspace` iterations; invalid files at
 * file:line:col (and in `validate`); exit codes; and the built-ins' own confusion table.
 */
import type { RoutingFigures } from "../../src/storage/eval-results.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";

const prompt = (id: string, description: string, tags: string[]) =>
  `id: ${id}\ndescription: ${description}\ntype: prompt\ntags: [${tags.join(", ")}]\nprompt: Go\n`;
const set = (items: [string, boolean][]) =>
  JSON.stringify(items.map(([query, should_trigger]) => ({ query, should_trigger })));

const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\n",
  ".skills/sql-helper.yaml": prompt("sql-helper", "Write and fix SQL queries against the team database", ["sql"]),
  ".skills/sql-helper.eval_set.json": set([
    ["fix my SQL query", true],
    ["write a query against the database", true],
    ["paint the walls of my room", false],
  ]),
  ".skills/sql-helper.evals.json": JSON.stringify({
    skill_name: "sql-helper",
    evals: [{ id: 1, prompt: "fix this query", assertions: ["uses a JOIN"] }],
  }),
  ".skills/paint-walls.yaml": prompt("paint-walls", "Choose paint colours for the walls of a room", ["home"]),
  ".skills/paint-walls.eval_set.json": set([
    ["choose colours for my walls", true],
    ["plan the furniture of my room", true],
    ["paint colours for a room", false],
  ]),
  ".skills/room-plan/SKILL.md":
    "---\nname: room-plan\ndescription: Plan the furniture of a room before moving in\n---\nPlan it.\n",
  ".skills/room-plan/evals/eval_set.json": set([["plan the furniture of my room", true]]),
  ".skills/room-plan/evals/evals.json": JSON.stringify({
    skill_name: "room-plan",
    evals: [{ id: 1, prompt: "plan my room", expectations: ["names a sofa"] }],
  }),
  "other-set.json": set([["walls", true]]),
};

interface Report {
  mode: string;
  note: string;
  catalog: number;
  minRecall?: number;
  skills: (RoutingFigures & {
    skill: string;
    queries: { query: string; should_trigger: boolean; rank: number | null; winner: string | null }[];
  })[];
  underMinRecall?: string[];
  problems: unknown[];
}

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);

describe("eval --routing", () => {
  test("--json: every skill with a trigger set, recall@1/@3, false fires, who won instead; labelled a proxy", async () => {
    const { code, json } = await runCliJson<Report>(["eval", "--routing"], fixture.cwd, fixture.home);
    expect(code).toBe(0);
    expect(json.mode).toBe("routing");
    expect(json.note).toContain("not by a model");
    expect(json.catalog).toBe(3);
    expect(json.skills.map((s) => s.skill)).toEqual(["paint-walls", "room-plan", "sql-helper"]);
    const paint = json.skills[0]!;
    expect(paint.recallAt1).toBe(0.5);
    expect(paint.wonInstead).toEqual({ "room-plan": 1 });
    expect(paint.falseFires).toBe(1);
    const sql = json.skills[2]!;
    expect([sql.recallAt1, sql.recallAt3, sql.falseFires]).toEqual([1, 1, 0]);
    expect(json.problems).toEqual([]);
  });

  test("text: a table per skill on stdout, each miss and false fire listed, the proxy note on stderr", async () => {
    const { code, stdout, stderr } = await cli("eval");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^SKILL +SHOULD +SHOULD NOT +RECALL@1 +RECALL@3 +FALSE FIRES +WON INSTEAD$/);
    expect(stdout).toMatch(/paint-walls +2 +1 +50% +\d+% +1 +room-plan ×1/);
    expect(stdout).toContain('paint-walls missed "plan the furniture of my room": room-plan first');
    expect(stdout).toContain('paint-walls fired on "paint colours for a room" (should not)');
    expect(stderr).toContain("routing proxy");
    expect(stderr).toContain("3 skills, 7 queries, over 3 reachable skills");
  });

  test("--min-recall: exit 1 naming each skill under it; at or over it, exit 0", async () => {
    const under = await cli("eval", "--min-recall", "0.8");
    expect(under.code).toBe(1);
    expect(under.stderr).toContain("paint-walls: recall@1 50% is under --min-recall 80%");
    expect(under.stderr).not.toContain("sql-helper: recall@1");
    expect((await cli("eval", "--min-recall", "0.5")).code).toBe(0);
    expect((await cli("eval", "--min-recall", "2")).code).toBe(2);
  });

  test("named skills only; --trigger-set PATH for the one skill named; an unknown name is exit 1", async () => {
    const { json } = await runCliJson<Report>(["eval", "sql-helper"], fixture.cwd, fixture.home);
    expect(json.skills.map((s) => s.skill)).toEqual(["sql-helper"]);
    const other = await runCliJson<Report>(
      ["eval", "paint-walls", "--trigger-set", "other-set.json"],
      fixture.cwd,
      fixture.home,
    );
    expect(other.json.skills[0]!.queries.map((q) => q.query)).toEqual(["walls"]);
    expect((await cli("eval", "--trigger-set", "other-set.json")).code).toBe(2);
    const unknown = await cli("eval", "no-such-skill");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no served skill named "no-such-skill"');
    const missing = await cli("eval", "sql-helper", "--trigger-set", "absent.json");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("absent.json");
  });

  test("--workspace DIR: iteration-1, then iteration-2, each routing.json the --json report", async () => {
    const first = await runCliJson<Report>(["eval", "--workspace", "ws"], fixture.cwd, fixture.home);
    await cli("eval", "--workspace", "ws");
    const written = JSON.parse(readFileSync(join(fixture.cwd, "ws/iteration-1/routing.json"), "utf8"));
    expect(written).toEqual(first.json);
    expect(existsSync(join(fixture.cwd, "ws/iteration-2/routing.json"))).toBe(true);
    // A workspace that cannot be written is exit 1 with the reason, not a crash.
    const blocked = await cli("eval", "--workspace", "other-set.json");
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain("cannot write the results to other-set.json");
  });

  test("eval.workspace in the config: results go there without --workspace; --workspace still wins", async () => {
    const config = join(fixture.cwd, "skill-central.yaml");
    const before = readFileSync(config, "utf8");
    try {
      // Without the key (today's default) nothing is written.
      expect((await cli("eval")).code).toBe(0);
      expect(existsSync(join(fixture.cwd, "eval-workspace"))).toBe(false);
      fixture.write("skill-central.yaml", `${before}eval:\n  workspace: ci/evals\n`);
      const run = await cli("eval");
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`wrote ${join("ci", "evals", "iteration-1", "routing.json")}`);
      const written = JSON.parse(readFileSync(join(fixture.cwd, "ci/evals/iteration-1/routing.json"), "utf8"));
      expect(written.mode).toBe("routing");
      expect((await cli("eval", "--workspace", "elsewhere")).code).toBe(0);
      expect(existsSync(join(fixture.cwd, "elsewhere/iteration-1/routing.json"))).toBe(true);
      expect(existsSync(join(fixture.cwd, "ci/evals/iteration-2"))).toBe(false);
    } finally {
      fixture.write("skill-central.yaml", before);
    }
  });
});

describe("eval files are the author's test data", () => {
  test("a folder's evals/ is not among the files the skill serves", async () => {
    const { code, stdout } = await runCli(["show", "room-plan", "--json"], fixture.cwd, fixture.home);
    expect(code).toBe(0);
    const files = (JSON.parse(stdout) as { skill: { files: { path: string }[] } }).skill.files.map((f) => f.path);
    expect(files).toEqual(["SKILL.md"]);
  });

  test("a skill file's .eval_set.json and .evals.json beside it are not loaded as skills", async () => {
    const { code, json, stderr } = await runCliJson<{ id: string }[]>(["list"], fixture.cwd, fixture.home);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(json.map((s) => s.id).sort()).toEqual(["paint-walls", "room-plan", "sql-helper"]);
  });
});

describe("eval --client", () => {
  let tools: Fixture;
  beforeAll(() => {
    tools = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/shout.yaml":
        "id: shout\ndescription: Shout a message in capitals\ntype: tool\ninputSchema:\n  type: object\ntemplate: Hi\n",
      ".skills/shout.eval_set.json": set([["shout this message", true]]),
      ".skills/greet.yaml": prompt("greet", "Greet someone by name with a message", ["social"]),
      ".skills/greet.eval_set.json": set([["greet Ada with a message", true]]),
    });
  });
  afterAll(() => tools.cleanup());

  test("a client without the catalog tools reaches only the skills listed to it as tools; one with them, every skill", async () => {
    const code = await runCliJson<Report & { client: { catalogTools: boolean } }>(
      ["eval", "--client", "claude-code"],
      tools.cwd,
      tools.home,
    );
    expect(code.json.client.catalogTools).toBe(false);
    expect(code.json.catalog).toBe(1);
    expect(code.json.skills.map((s) => [s.skill, s.reachable, s.recallAt1])).toEqual([
      ["greet", false, 0],
      ["shout", true, 1],
    ]);
    const windsurf = await runCliJson<Report & { client: { catalogTools: boolean } }>(
      ["eval", "--client", "windsurf"],
      tools.cwd,
      tools.home,
    );
    expect(windsurf.json.client.catalogTools).toBe(true);
    expect(windsurf.json.catalog).toBe(2);
    expect(windsurf.json.skills.every((s) => s.reachable && s.recallAt1 === 1)).toBe(true);
    const text = await runCli(["eval", "--client", "claude-code"], tools.cwd, tools.home);
    expect(text.stdout).toContain("greet (not reachable)");
  });
});

describe("eval --every-client", () => {
  test("one row per plan: clients with the same reach share it, with mean recall and the skills they cannot reach", async () => {
    const empty = makeFixture({});
    try {
      const { code, json } = await runCliJson<
        Report & { plans: { clients: string[]; catalogTools: boolean; reachable: number; unreachable: string[] }[] }
      >(["eval", "--every-client"], empty.cwd, empty.home);
      expect(code).toBe(0);
      const withTools = json.plans.find((p) => p.catalogTools)!;
      const without = json.plans.find((p) => !p.catalogTools)!;
      expect(withTools.clients).toContain("Windsurf");
      expect(withTools.reachable).toBe(json.catalog);
      expect(withTools.unreachable).toEqual([]);
      expect(without.clients).toContain("Claude Code");
      // Without the catalog tools only the two built-in tool skills are the model's to pick.
      expect(without.reachable).toBe(2);
      expect(without.unreachable).toContain("review-pr");
      const text = await runCli(["eval", "--every-client"], empty.cwd, empty.home);
      expect(text.stdout).toMatch(/^CLIENTS +CATALOG TOOLS +REACHABLE +MEAN RECALL@1/m);
      expect((await runCli(["eval", "--every-client", "--client", "cursor"], empty.cwd, empty.home)).code).toBe(2);
    } finally {
      empty.cleanup();
    }
  });
});

describe("invalid and missing trigger sets", () => {
  let bad: Fixture;
  beforeAll(() => {
    bad = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/greet.yaml": prompt("greet", "Say hello to someone", ["social"]),
      ".skills/greet.eval_set.json": '[\n  {"query": "say hi", "should_trigger": "yes"}\n]\n',
      ".skills/empty.yaml": prompt("empty", "Nothing to see", []),
    });
  });
  afterAll(() => bad.cleanup());

  test("a schema error is reported at file:line:col, and eval exits 1", async () => {
    const run = await runCli(["eval"], bad.cwd, bad.home);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(".skills/greet.eval_set.json:2:41: error: [0].should_trigger");
  });

  test("validate reports the same error at file:line:col and fails", async () => {
    const run = await runCli(["validate"], bad.cwd, bad.home);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain(".skills/greet.eval_set.json:2:41: error: [0].should_trigger");
  });

  test("no trigger set anywhere: exit 1, saying where one goes", async () => {
    const run = await runCli(["eval", "empty"], bad.cwd, bad.home);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no skill has a trigger set");
    expect(run.stderr).toContain("eval_set.json");
  });
});

describe("the built-in skills", () => {
  test("every built-in has a trigger set of about ten honest queries; the routing table is printed", async () => {
    const empty = makeFixture({});
    try {
      const { code, json } = await runCliJson<Report>(["eval"], empty.cwd, empty.home);
      expect(code).toBe(0);
      expect(json.skills.length).toBe(json.catalog);
      for (const s of json.skills) {
        expect(s.positives).toBeGreaterThanOrEqual(5);
        expect(s.negatives).toBeGreaterThanOrEqual(2);
        expect(s.recallAt3).toBeGreaterThan(0.5);
      }
      const text = await runCli(["eval"], empty.cwd, empty.home);
      // The confusion table the docs quote (docs/eval.md): printed for whoever reads the test log.
      console.log(text.stdout);
      expect(text.stdout).toContain("WON INSTEAD");
    } finally {
      empty.cleanup();
    }
  });
});
