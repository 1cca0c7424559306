import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { EvalsView } from "../../src/board/wire.ts";
import {
  chromiumInstalled,
  launchChromium,
  nextVersion,
  shownVersion,
  startBoard,
  type RunningBoard,
} from "../helpers/board.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { overflowingParts, seriousViolations } from "../helpers/page-checks.ts";
import { runCli } from "./cli-run.ts";

/**
 * Issue 52 item 4, on the board, in Chromium: a project whose config names its eval workspace
 * (`eval.workspace`), holding test/fixtures/eval-workspace (two iterations in the pinned results
 * format: a skill worse than its baseline, one better, one needing a recording, a routing-only
 * skill under its --min-recall, a half-written routing.json, an entry of the wrong shape). The
 * Evals view lists the results worst first, the skills not run and the files skipped (at
 * file:line:col); a skill's page shows its routing and model results; a new run written to the
 * workspace shows without a restart; the view is in the URL; axe finds nothing serious.
 */

const WORKSPACE = join(import.meta.dir, "..", "fixtures", "eval-workspace");

export function boardEvalsSuite(target: ServerTarget): void {
  describe.skipIf(!chromiumInstalled)(`the board shows each skill's last eval results (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    let browser: Browser;
    let page: Page;
    const summaryEvals = async () =>
      (
        (await (await fetch(new URL("api/summary", board.base), { headers: board.authorized() })).json()) as {
          evals: EvalsView;
        }
      ).evals;

    beforeAll(async () => {
      fixture = makeFixture({
        "skill-central.yaml": "builtin: false\neval:\n  workspace: ci/evals\n",
        ...Object.fromEntries(
          ["review-pr", "sql-helper", "deploy", "changelog", "paint-walls", "room-plan", "plain"].map((id) => [
            `.skills/${id}.yaml`,
            promptSkill(id),
          ]),
        ),
        ".skills/room-plan.eval_set.json": JSON.stringify([{ query: "plan my room", should_trigger: true }]),
      });
      cpSync(WORKSPACE, join(fixture.cwd, "ci", "evals"), { recursive: true });
      [board, browser] = await Promise.all([startBoard(target, fixture.cwd, fixture.home), launchChromium()]);
      page = await browser.newPage();
      await page.goto(new URL("#/evals", board.url).href);
      await page.getByRole("table", { name: "Eval results" }).waitFor();
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await board?.stop();
      fixture?.cleanup();
    });

    const rowsOf = async (name: string) =>
      (await page.getByRole("table", { name }).getByRole("row").allInnerTexts()).map((r) =>
        r.split(/\s*\t\s*|\s*\n\s*/).join(" | "),
      );

    test("/api/summary carries the evals: worst first, the skills not run, the files skipped at file:line:col", async () => {
      const evals = await summaryEvals();
      expect(evals).toMatchObject({ workspace: join("ci", "evals"), configured: true, iterations: 2 });
      expect(evals.results.map((r) => `${r.id} ${r.standing}`)).toEqual([
        "deploy worse",
        "paint-walls under-threshold",
        "changelog needs-recording",
        "review-pr ok",
        "sql-helper ok",
      ]);
      const deploy = evals.results[0]!;
      expect(deploy.why).toBe("worse than without it: 40% of checks passed with the skill, 70% without");
      expect(deploy.model).toMatchObject({ iteration: 2, withSkill: 0.4, withoutSkill: 0.7, delta: -0.3 });
      expect(evals.results[1]!.why).toBe("routing recall@1 50% is under --min-recall 80%");
      expect(evals.results[1]!.routing?.wonInstead).toEqual([
        { skill: "(none)", times: 1 },
        { skill: "room-plan", times: 1 },
      ]);
      expect(evals.notRun).toEqual([{ id: "room-plan", triggerSet: true, testCases: false }]);
      expect(evals.skipped.map((s) => `${s.file}:${s.line}:${s.column}`)).toEqual([
        join("ci", "evals", "iteration-2", "benchmark.json:172:5"),
        join("ci", "evals", "iteration-2", "routing.json:10:7"),
      ]);
    });

    test("the Evals view: the results table worst first, Not run, and the skipped files in words", async () => {
      const rows = await rowsOf("Eval results");
      expect(rows[0]).toBe("Skill | Standing | Routing (proxy) | Model run | Last run");
      expect(rows[1]).toMatch(
        /^deploy \| worse than without it \| – \| 40% with, 70% without \(−30 points\); trigger rate 33%; worse \| .+ \(iteration 2\)$/,
      );
      expect(rows[2]).toMatch(/^paint-walls \| under the threshold \| recall@1 50%, @3 75%; 0 false fires \| – \| /);
      expect(rows[3]).toMatch(/^changelog \| needs a new recording \| – \| no recording for this version \| /);
      expect(rows[4]).toMatch(
        /^review-pr \| ok \| recall@1 86%, @3 100%; 0 false fires \| 92% with, 67% without \(\+25 points\); trigger rate 83%; better \| /,
      );
      expect(await rowsOf("Not run")).toEqual(["Skill | Has", "room-plan | a trigger set"]);
      const skipped = await page.getByRole("region", { name: "Skipped results files" }).textContent();
      expect(skipped).toContain(`${join("ci", "evals", "iteration-2", "routing.json")}:10:7 not valid JSON`);
      expect(await page.locator("#evals-link").getAttribute("aria-current")).toBe("page");
    });

    test("a skill's page shows its last routing and model results; the Overview counts them", async () => {
      await page.goto(new URL("#/skill/deploy", board.base).href);
      const deploy = page.getByRole("region", { name: "Skill deploy" }).getByRole("region", { name: "Evals" });
      await deploy.waitFor();
      const text = await deploy.textContent();
      expect(text).toContain("worse than without it: 40% of checks passed with the skill, 70% without");
      expect(text).toContain(
        "Pass rate 40% with the skill, 70% without (−30 points); trigger rate 33% (threshold 50%)",
      );
      expect(text).toMatch(
        /Iteration 2, .+ · claude-sonnet-4-5 via anthropic as claude-code · 1 eval, 3 runs each · replayed/,
      );
      await page.goto(new URL("#/skill/paint-walls", board.base).href);
      const paint = page.getByRole("region", { name: "Skill paint-walls" }).getByRole("region", { name: "Evals" });
      await paint.waitFor();
      expect(await paint.textContent()).toContain("Won instead: (none) ×1, room-plan ×1.");
      await page.goto(new URL("#/skill/room-plan", board.base).href);
      const notRun = page.getByRole("region", { name: "Skill room-plan" }).getByRole("region", { name: "Evals" });
      await notRun.waitFor();
      expect(await notRun.textContent()).toContain("Not run");
      await page.goto(new URL("#/", board.base).href);
      // The Overview is drawn once its usage and costs arrive: until then the skill's page is on screen.
      const overview = page
        .getByRole("region", { name: "Overview" })
        .getByRole("region", { name: "Evals" })
        .filter({ hasText: "with results" });
      await overview.waitFor();
      expect(await overview.textContent()).toContain(
        "5 skills with results: 1 worse than without the skill, 1 under a threshold, 1 needing a new recording; 1 not run.",
      );
    });

    test("the view is in the URL: back from a skill returns to Evals, choices kept", async () => {
      await page.goto(new URL("#/evals?problems=all", board.base).href);
      await page.getByRole("region", { name: "Evals" }).getByRole("table", { name: "Eval results" }).waitFor();
      await page.getByRole("table", { name: "Eval results" }).getByRole("link", { name: "sql-helper" }).click();
      await page.getByRole("region", { name: "Skill sql-helper" }).waitFor();
      expect(page.url()).toContain("#/skill/sql-helper?problems=all");
      await page.goBack();
      await page.getByRole("region", { name: "Evals" }).getByRole("table", { name: "Eval results" }).waitFor();
      expect(page.url()).toMatch(/#\/evals\?problems=all$/);
      expect(await page.locator("#all-problems").isChecked()).toBe(true);
    });

    test("a new run written to the workspace shows without a restart (the workspace is watched)", async () => {
      await page.goto(new URL("#/evals", board.base).href);
      await page.getByRole("table", { name: "Eval results" }).waitFor();
      const before = await shownVersion(page);
      const better = {
        metadata: { timestamp: "2026-12-03T10:00:00.000Z", model: "claude-opus-4-1", threshold: 0.5 },
        skills: [
          {
            skill_name: "deploy",
            trigger_rate: 1,
            evals_run: [1],
            run_summary: {
              with_skill: { pass_rate: { mean: 0.9 } },
              without_skill: { pass_rate: { mean: 0.7 } },
              delta: { pass_rate: 0.2 },
            },
            verdict: "better",
            runs: [],
          },
        ],
      };
      fixture.write("ci/evals/iteration-3/benchmark.json", JSON.stringify(better));
      let version = await nextVersion(page, before);
      // The file may be seen in two bursts (the folder, then the file): wait until the page shows it.
      while (!(await summaryEvals()).results.some((r) => r.id === "deploy" && r.standing === "ok"))
        version = await nextVersion(page, version);
      await page.waitForFunction(() => {
        const doc = (
          globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
        ).document;
        return doc.querySelector("table[aria-label='Eval results'] tbody tr")?.textContent?.startsWith("paint-walls");
      });
      const rows = await rowsOf("Eval results");
      expect(rows.find((r) => r.startsWith("deploy"))).toMatch(
        /^deploy \| ok \| – \| 90% with, 70% without \(\+20 points\); trigger rate 100%; better \| .+ \(iteration 3\)$/,
      );
    });

    // Both layouts: one column at 1024 px, the card beside Problems at 1280 px.
    for (const view of [
      { name: "the Evals view", hash: "#/evals", waitFor: "Eval results" },
      { name: "a skill with results", hash: "#/skill/paint-walls", waitFor: "Usage" },
    ])
      for (const [theme, width] of [
        ["light", 1024],
        ["dark", 1280],
      ] as const)
        test(`axe finds no serious or critical violation, and nothing overflows: ${view.name}, ${theme}, ${width} px`, async () => {
          const context = await browser.newContext({
            colorScheme: theme,
            viewport: { width, height: 900 },
            bypassCSP: true,
          });
          try {
            const checked = await context.newPage();
            await checked.goto(new URL(view.hash, board.url).href);
            await checked
              .getByRole("region", { name: view.waitFor })
              .or(checked.getByRole("table", { name: view.waitFor }))
              .first()
              .waitFor();
            const violations = await seriousViolations(checked);
            expect(violations).toEqual([]);
            // The results table wraps inside its card rather than push past it.
            const overflowing = await overflowingParts(checked);
            expect(overflowing).toEqual([]);
          } finally {
            await context.close();
          }
        });

    test("the workspace removed, then made again by a real `eval` run (eval.workspace): the page follows both", async () => {
      await page.goto(new URL("#/evals", board.base).href);
      await page.getByRole("table", { name: "Eval results" }).waitFor();
      let version = await shownVersion(page);
      fixture.remove("ci/evals");
      while ((await summaryEvals()).iterations !== 0) version = await nextVersion(page, version);
      await page.getByText("No results yet").waitFor();
      const run = await runCli(["eval", "--routing"], fixture.cwd, fixture.home, { NO_COLOR: "1" });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`wrote ${join("ci", "evals", "iteration-1", "routing.json")}`);
      while (!(await summaryEvals()).results.some((r) => r.id === "room-plan"))
        version = await nextVersion(page, version);
      const evals = await summaryEvals();
      expect(evals.results.map((r) => r.id)).toEqual(["room-plan"]);
      expect(evals.results[0]!.routing).toMatchObject({ iteration: 1, positives: 1, reachable: true });
      await page.getByRole("table", { name: "Eval results" }).getByRole("link", { name: "room-plan" }).waitFor();
    });
  });
}
