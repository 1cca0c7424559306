/**
 * `skill-central eval --model` end to end (issue 52 items 3 to 6), against the stand-in model
 * server (test/helpers/model-stand-in.ts: a double of the wire protocols, not of a model): the
 * tool-call loop through our own MCP handlers, both wire formats, triggers seen by the server,
 * the baseline without the skill, graders, the pinned results layout, malformed and slow
 * answers, record then replay with the stand-in stopped, a changed skill needing a new
 * recording, the key kept out of every file and message, and the exit statuses. Run against
 * the source entry and the compiled binary.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { type Script, type StandIn, startStandIn } from "../helpers/model-stand-in.ts";
import type { CliRun } from "./cli-run.ts";

export interface EvalTarget {
  name: string;
  run(args: readonly string[], cwd: string, env: Record<string, string>): Promise<CliRun>;
}

const KEY = "sk-test-9f8e7d6c5b4a-DO-NOT-LEAK";
const MARK = "SIGNED-RN";

const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\n",
  ".skills/release-notes/SKILL.md": `---\nname: release-notes\ndescription: Write release notes for a version from its merged changes\n---\nPut the changes under a "Highlights" heading, and end with the line ${MARK}.\n`,
  ".skills/release-notes/evals/files/changes.txt": "fix: crash on empty input\nfeat: dark mode\n",
  ".skills/release-notes/evals/evals.json": JSON.stringify({
    skill_name: "release-notes",
    evals: [
      {
        id: 1,
        prompt: "Write the release notes for 2.0",
        files: ["evals/files/changes.txt"],
        assertions: [
          "contains: Highlights",
          `regex: /${MARK}$/m`,
          'json-schema: {"type":"object","required":["version"]}',
          "file: notes.md",
          "reads like a human wrote it",
        ],
      },
    ],
  }),
  ".skills/paint-walls.yaml":
    "id: paint-walls\ndescription: Choose paint colours for the walls of a room\ntype: prompt\nprompt: Pick colours.\n",
};

/** A model that follows the catalog: it loads release-notes, and writes notes the skill's way only if it got the skill. */
const FOLLOWS: Script = (r) => {
  if (r.turn === 0) return { toolCalls: [{ name: "load_skill", arguments: { name: "release-notes" } }] };
  const got = r.toolResults.some((t) => !t.isError && t.content.includes(MARK));
  if (!got) return { text: "Version 2.0 fixes a crash and adds dark mode." };
  return {
    text: `## Highlights\n\n\`\`\`json\n{"version": "2.0"}\n\`\`\`\n\n\`\`\`markdown notes.md\n# 2.0\n- dark mode\n\`\`\`\n${MARK}`,
  };
};

interface Benchmark {
  metadata: Record<string, unknown>;
  skills: {
    skill_name: string;
    digest: string;
    layer: string;
    evals_run: unknown[];
    trigger_rate: number | null;
    verdict: string;
    run_summary: {
      with_skill: { pass_rate: { mean: number } } | null;
      without_skill: { pass_rate: { mean: number } } | null;
      delta: { pass_rate: number; time_seconds: number; tokens: number } | null;
    };
    runs: { configuration: string; triggered: boolean; error: string | null; pass_rate: number; tokens: number }[];
  }[];
}

function everyFile(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

export function evalModelSuite(target: EvalTarget): void {
  describe(`eval --model (${target.name})`, () => {
    let standIn: StandIn;
    let fixture: Fixture;
    const fixtures: Fixture[] = [];
    beforeAll(() => {
      standIn = startStandIn(FOLLOWS);
    });
    afterAll(async () => {
      await standIn.stop();
      for (const f of fixtures) f.cleanup();
    });
    afterEach(() => {
      standIn.script = FOLLOWS;
    });
    const project = () => {
      fixture = makeFixture(FILES);
      fixtures.push(fixture);
      return fixture;
    };
    const env = (extra: Record<string, string> = {}) => ({
      HOME: fixture.home,
      PATH: process.env.PATH ?? "",
      OPENAI_API_KEY: KEY,
      ...extra,
    });
    const openai = (...more: string[]) => [
      "eval",
      "--model",
      "stand-in-1",
      "--base-url",
      standIn.openaiBase,
      "--runs",
      "1",
      ...more,
    ];
    const benchmarkOf = (run: CliRun) => {
      try {
        return JSON.parse(run.stdout) as Benchmark;
      } catch {
        throw new Error(`not JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
      }
    };

    test("a tool-call loop that loads the right skill: triggered, assertions pass, better than the baseline, exit 0, the pinned layout", async () => {
      project();
      const run = await target.run(openai("--json"), fixture.cwd, env());
      expect(run.code).toBe(0);
      const bench = benchmarkOf(run);
      expect(bench.metadata).toMatchObject({
        tool: "skill-central",
        model: "stand-in-1",
        provider: "openai",
        client: "skill-central-eval",
        runs_per_configuration: 1,
        threshold: 0.5,
        replayed: false,
      });
      const [skill] = bench.skills;
      expect(skill).toMatchObject({
        skill_name: "release-notes",
        layer: "project",
        evals_run: [1],
        trigger_rate: 1,
        verdict: "better",
      });
      expect(skill!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      // Four of five pass with the skill (the free-text one is not graded without --grader-model); none without.
      expect(skill!.run_summary.with_skill!.pass_rate.mean).toBe(0.8);
      expect(skill!.run_summary.without_skill!.pass_rate.mean).toBe(0);
      expect(skill!.run_summary.delta!.pass_rate).toBe(0.8);
      expect(skill!.runs.map((r) => [r.configuration, r.triggered, r.error])).toEqual([
        ["with_skill", true, null],
        ["without_skill", false, null],
      ]);
      // The model saw the catalog tools and our instructions, never SKILL.md in its prompt; the input file was.
      const first = standIn.requests.findLast((r) => r.turn === 0)!;
      expect(first.tools).toEqual(["find_skills", "load_skill"]);
      expect(first.system).toContain("find_skills");
      expect(first.prompt).toContain("feat: dark mode");
      expect(first.prompt).not.toContain(MARK);
      const iteration = join(fixture.cwd, "eval-workspace", "iteration-1");
      const withRun = join(iteration, "release-notes", "eval-1", "with_skill", "run-1");
      expect(JSON.parse(readFileSync(join(iteration, "benchmark.json"), "utf8"))).toEqual(bench);
      expect(readFileSync(join(withRun, "outputs", "notes.md"), "utf8")).toBe("# 2.0\n- dark mode\n");
      const grading = JSON.parse(readFileSync(join(withRun, "grading.json"), "utf8"));
      expect(grading.summary).toEqual({ passed: 4, failed: 1, total: 5, pass_rate: 0.8 });
      expect(grading.expectations.map((e: { grader: string; passed: boolean }) => [e.grader, e.passed])).toEqual([
        ["contains", true],
        ["regex", true],
        ["json-schema", true],
        ["file", true],
        ["none", false],
      ]);
      expect(grading.triggers).toEqual([{ kind: "load_skill", skill: "release-notes" }]);
      expect(JSON.parse(readFileSync(join(withRun, "timing.json"), "utf8"))).toMatchObject({
        total_tokens: 240,
        input_tokens: 200,
        output_tokens: 40,
        turns: 2,
      });
      expect(existsSync(join(iteration, "release-notes", "eval-1", "without_skill", "run-1", "transcript.json"))).toBe(
        true,
      );
      // A second run never overwrites the first.
      const again = await target.run(openai(), fixture.cwd, env());
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/release-notes\s+80%\s+0%\s+\+80\s+100%\s+2\s+better/);
      expect(existsSync(join(fixture.cwd, "eval-workspace", "iteration-2", "benchmark.json"))).toBe(true);
    });

    test("Anthropic's Messages wire: the same loop through tool_use blocks, the key in x-api-key", async () => {
      project();
      const run = await target.run(
        ["eval", "--model", "claude-stand-in", "--base-url", standIn.origin, "--runs", "1", "--json"],
        fixture.cwd,
        { HOME: fixture.home, PATH: process.env.PATH ?? "", ANTHROPIC_API_KEY: KEY },
      );
      expect(run.code).toBe(0);
      const bench = benchmarkOf(run);
      expect(bench.metadata.provider).toBe("anthropic");
      expect(bench.skills[0]).toMatchObject({ trigger_rate: 1, verdict: "better" });
      const seen = standIn.requests.at(-1)!;
      expect(seen.provider).toBe("anthropic");
      expect(seen.headers["x-api-key"]).toBe(KEY);
      expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    });

    test("--client: the model is served what that client gets; Claude Code has no catalog tools, so a prompt skill is not the model's to pick", async () => {
      project();
      standIn.script = (r) => ({ text: `tools: ${r.tools.join(",") || "none"}` });
      const run = await target.run(openai("--json", "--client", "claude-code"), fixture.cwd, env());
      expect(run.code).toBe(1);
      const bench = benchmarkOf(run);
      expect(bench.metadata.client).toBe("claude-code");
      expect(bench.skills[0]).toMatchObject({ trigger_rate: 0 });
      expect(standIn.requests.at(-1)!.tools).toEqual([]);
      expect(standIn.requests.at(-1)!.system).not.toContain("find_skills");
    });

    test("eval.workspace in the project's config: model and routing runs both write there, each a new iteration", async () => {
      project();
      fixture.write("skill-central.yaml", "builtin: false\neval: { workspace: ci/runs }\n");
      fixture.write(
        ".skills/paint-walls.eval_set.json",
        '[{"query": "paint colours for my walls", "should_trigger": true}]',
      );
      const model = await target.run(openai(), fixture.cwd, env());
      expect(model.code).toBe(0);
      const routing = await target.run(["eval"], fixture.cwd, env());
      expect(routing.code).toBe(0);
      const runs = join(fixture.cwd, "ci", "runs");
      expect(existsSync(join(runs, "iteration-1", "benchmark.json"))).toBe(true);
      expect(existsSync(join(runs, "iteration-2", "routing.json"))).toBe(true);
      expect(existsSync(join(fixture.cwd, "eval-workspace"))).toBe(false);
    });

    test("--grader-model grades free-text assertions through the same API; a grader reply that is not a verdict fails the assertion with why", async () => {
      project();
      let verdict = '{"passed": true, "evidence": "reads well"}';
      standIn.script = (r) => (r.system.startsWith("You grade one assertion") ? { text: verdict } : FOLLOWS(r));
      const run = await target.run(openai("--json", "--grader-model", "judge-1"), fixture.cwd, env());
      expect(run.code).toBe(0);
      const bench = benchmarkOf(run);
      expect(bench.metadata.grader_model).toBe("judge-1");
      expect(bench.skills[0]!.run_summary.with_skill!.pass_rate.mean).toBe(1);
      const judged = standIn.requests.filter((r) => r.model === "judge-1");
      expect(judged.length).toBe(2);
      expect(judged[0]!.prompt).toContain("Assertion: reads like a human wrote it");
      verdict = "I think so";
      const again = await target.run(openai("--grader-model", "judge-1"), fixture.cwd, env());
      const grading = JSON.parse(
        readFileSync(
          join(
            fixture.cwd,
            "eval-workspace",
            "iteration-2",
            "release-notes",
            "eval-1",
            "with_skill",
            "run-1",
            "grading.json",
          ),
          "utf8",
        ),
      );
      expect(again.code).toBe(0);
      expect(grading.expectations[4]).toEqual({
        text: "reads like a human wrote it",
        passed: false,
        evidence: 'grader failed: malformed answer: the grader did not reply with {"passed": true|false}',
        grader: "model",
      });
    });

    test("a model that never triggers the skill: trigger rate 0, under the threshold, exit 1", async () => {
      project();
      standIn.script = () => ({ text: "Highlights: dark mode" });
      const run = await target.run(openai("--json"), fixture.cwd, env());
      expect(run.code).toBe(1);
      expect(benchmarkOf(run).skills[0]).toMatchObject({ trigger_rate: 0, verdict: "same" });
      expect(run.stderr).toContain("release-notes: trigger rate 0% is under the threshold 50%");
    });

    test("a model that triggers the wrong skill: the server saw paint-walls, not release-notes", async () => {
      project();
      standIn.script = (r) =>
        r.turn === 0
          ? { toolCalls: [{ name: "load_skill", arguments: { name: "paint-walls" } }] }
          : { text: "Pick blue." };
      const run = await target.run(openai("--json", "--threshold", "0"), fixture.cwd, env());
      expect(run.code).toBe(0);
      expect(benchmarkOf(run).skills[0]).toMatchObject({ trigger_rate: 0 });
      const grading = JSON.parse(
        readFileSync(
          join(
            fixture.cwd,
            "eval-workspace",
            "iteration-1",
            "release-notes",
            "eval-1",
            "with_skill",
            "run-1",
            "grading.json",
          ),
          "utf8",
        ),
      );
      expect(grading.triggered).toBe(false);
      expect(grading.triggers).toEqual([{ kind: "load_skill", skill: "paint-walls" }]);
    });

    test("a skill that makes the answers worse than the baseline: verdict worse, exit 1", async () => {
      project();
      standIn.script = (r) => {
        if (r.turn === 0) return { toolCalls: [{ name: "load_skill", arguments: { name: "release-notes" } }] };
        const got = r.toolResults.some((t) => t.content.includes(MARK));
        return { text: got ? "nothing useful" : "## Highlights" };
      };
      const run = await target.run(openai("--json"), fixture.cwd, env());
      expect(run.code).toBe(1);
      expect(benchmarkOf(run).skills[0]).toMatchObject({ verdict: "worse", trigger_rate: 1 });
      expect(run.stderr).toContain("release-notes: scored worse with the skill than without it");
    });

    test("malformed answers are errors that name what was malformed: the run fails, exit 1", async () => {
      project();
      standIn.script = () => ({
        status: 200,
        body: JSON.stringify({
          choices: [
            {
              message: {
                role: "assistant",
                tool_calls: [{ id: "c1", function: { name: "load_skill", arguments: "{nope" } }],
              },
            },
          ],
        }),
      });
      const run = await target.run(openai("--json"), fixture.cwd, env());
      expect(run.code).toBe(1);
      const errors = benchmarkOf(run).skills[0]!.runs.map((r) => r.error);
      expect(errors).toEqual([
        "malformed answer: choices[0].message.tool_calls[0].function.arguments is not JSON",
        "malformed answer: choices[0].message.tool_calls[0].function.arguments is not JSON",
      ]);
      expect(run.stderr).toContain("release-notes: 2 runs failed with an error");
      standIn.script = () => ({ status: 200, body: "<html>gateway</html>" });
      const notJson = await target.run(openai(), fixture.cwd, env());
      expect(notJson.code).toBe(1);
      expect(notJson.stderr).toContain("malformed answer: http://127.0.0.1");
      expect(notJson.stderr).toContain("a body that is not JSON");
    });

    test("a slow answer is bounded by --timeout: the client aborts (the stand-in sees it), the run fails, exit 1", async () => {
      project();
      standIn.script = () => ({ hold: true });
      const [run] = await Promise.all([target.run(openai("--timeout", "0.5"), fixture.cwd, env()), standIn.aborted()]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("no answer from http://127.0.0.1");
      expect(run.stderr).toContain("within 0.5s (--timeout)");
    });

    test("record, then replay with the stand-in stopped: the same results, re-graded, replayed: true; then a changed skill needs a new recording, a changed eval names the request it lacks", async () => {
      project();
      const recordings = join(fixture.root, "recordings");
      const recorded = await target.run(openai("--json", "--record", recordings), fixture.cwd, env());
      expect(recorded.code).toBe(0);
      const offline = startStandIn(() => ({ text: "unused" }));
      await offline.stop();
      // Replay points at a stopped server and has no key: any request would fail.
      const replayArgs = [
        "eval",
        "--model",
        "stand-in-1",
        "--base-url",
        offline.openaiBase,
        "--runs",
        "1",
        "--replay",
        recordings,
        "--json",
      ];
      const noKey = { HOME: fixture.home, PATH: process.env.PATH ?? "" };
      const replayed = await target.run(replayArgs, fixture.cwd, noKey);
      expect(replayed.code).toBe(0);
      const a = benchmarkOf(recorded).skills[0]!;
      const b = benchmarkOf(replayed).skills[0]!;
      expect(benchmarkOf(replayed).metadata.replayed).toBe(true);
      expect([b.verdict, b.trigger_rate, b.run_summary.delta!.pass_rate, b.digest]).toEqual([
        a.verdict,
        a.trigger_rate,
        a.run_summary.delta!.pass_rate,
        a.digest,
      ]);
      expect(offline.requests).toEqual([]);
      // The eval changed, the skill did not: that request was never recorded.
      const evals = join(fixture.cwd, ".skills/release-notes/evals/evals.json");
      const before = readFileSync(evals, "utf8");
      fixture.write(".skills/release-notes/evals/evals.json", before.replace("for 2.0", "for 3.0"));
      const missing = await target.run(replayArgs, fixture.cwd, noKey);
      expect(missing.code).toBe(1);
      expect(benchmarkOf(missing).skills[0]!.runs[0]!.error).toMatch(
        /^release-notes eval 1 with_skill run 1: no recording of this request \([0-9a-f]{12}\) in --replay/,
      );
      fixture.write(".skills/release-notes/evals/evals.json", before);
      // The skill changed: never replayed stale.
      const skill = join(fixture.cwd, ".skills/release-notes/SKILL.md");
      fixture.write(".skills/release-notes/SKILL.md", readFileSync(skill, "utf8").replace("Highlights", "What's new"));
      const stale = await target.run(replayArgs, fixture.cwd, noKey);
      expect(stale.code).toBe(1);
      expect(benchmarkOf(stale).skills[0]).toMatchObject({ verdict: "needs-recording", runs: [], trigger_rate: null });
      expect(stale.stderr).toContain("release-notes: has no recording for its current digest (record it again)");
    });

    test("the key never reaches a recording, a results file, stdout or stderr, even when the API echoes it", async () => {
      project();
      const recordings = join(fixture.root, "recordings");
      const run = await target.run(openai("--record", recordings), fixture.cwd, env());
      expect(run.code).toBe(0);
      standIn.script = () => ({
        status: 401,
        body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }),
      });
      const refused = await target.run(openai("--record", recordings), fixture.cwd, env());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("answered 401: Incorrect API key provided: [key]");
      const written = [...everyFile(recordings), ...everyFile(join(fixture.cwd, "eval-workspace"))];
      expect(written.length).toBeGreaterThan(10);
      const leaks = written.filter((f) => readFileSync(f, "utf8").includes(KEY));
      expect(leaks).toEqual([]);
      for (const out of [run.stdout, run.stderr, refused.stdout, refused.stderr]) expect(out).not.toContain(KEY);
      // It was sent, as a bearer token, to the API only.
      expect(standIn.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    test("429 and 5xx are retried a bounded number of times; other statuses are not", async () => {
      project();
      let calls = 0;
      standIn.script = () => {
        calls++;
        return { status: 503, body: '{"error":{"message":"overloaded"}}', headers: { "retry-after": "0" } };
      };
      const run = await target.run(openai(), fixture.cwd, env());
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("answered 503 (after 3 attempts): overloaded");
      expect(calls).toBe(6); // two runs, three attempts each
      calls = 0;
      standIn.script = () => {
        calls++;
        return { status: 400, body: '{"error":{"message":"bad model"}}' };
      };
      const bad = await target.run(openai(), fixture.cwd, env());
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("answered 400: bad model");
      expect(calls).toBe(2);
    });

    test("usage errors exit 2: a model flag without --model, --record with --replay, no key for the provider's own endpoint, a clear-text remote base URL", async () => {
      project();
      const runs = await target.run(["eval", "--runs", "2"], fixture.cwd, env());
      expect([runs.code, runs.stderr]).toEqual([2, expect.stringContaining("--runs needs --model")]);
      const both = await target.run(openai("--record", "a", "--replay", "b"), fixture.cwd, env());
      expect([both.code, both.stderr]).toEqual([
        2,
        expect.stringContaining("--record and --replay cannot be combined"),
      ]);
      const noKey = await target.run(["eval", "--model", "gpt-x"], fixture.cwd, {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
      });
      expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining("no key for openai: set OPENAI_API_KEY")]);
      const cleartext = await target.run(
        ["eval", "--model", "m", "--base-url", "http://models.example.com/v1"],
        fixture.cwd,
        env(),
      );
      expect([cleartext.code, cleartext.stderr]).toEqual([
        2,
        expect.stringContaining("--base-url must be https (http:// only for a loopback host"),
      ]);
      const mixed = await target.run(openai("--min-recall", "0.5"), fixture.cwd, env());
      expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringContaining("--min-recall is for the routing mode")]);
    });
  });
}
