import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { GovernanceView } from "../../src/board/wire.ts";
import { chromiumInstalled, launchChromium, startBoard, type RunningBoard } from "../helpers/board.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { makeKey, signerLine } from "../helpers/ssh-keys.ts";
import { seriousViolations } from "../helpers/page-checks.ts";
import { runCli } from "./cli-run.ts";

/**
 * Issue 50 item 5, on the board, in Chromium: a governed project (policy.approvers, approval:
 * all) whose admin log, written by the real `approve` and `block` commands, blocks one skill,
 * approved another, and approved an older version of a third (which now awaits approval). The
 * Overview shows "Blocked", "Awaiting approval" and "Admin log (latest)" in words; a skill's page
 * shows its approval or its block; axe finds nothing serious in either theme.
 */

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function boardGovernanceSuite(target: ServerTarget): void {
  describe.skipIf(!chromiumInstalled)(`the board shows governance (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    let browser: Browser;
    let page: Page;
    const digests: Record<string, string> = {};
    const cli = async (args: string[]) => {
      const run = await runCli(args, fixture.cwd, fixture.home, { NO_COLOR: "1" });
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      return run.stdout;
    };

    beforeAll(async () => {
      fixture = makeFixture({
        "skill-central.yaml": "builtin: false\n",
        ".skills/deploy.yaml": promptSkill("deploy"),
        ".skills/other.yaml": promptSkill("other"),
        ".skills/leak.yaml": promptSkill("leak"),
      });
      fixture.write("~/keys/.keep", "");
      const alice = makeKey(join(fixture.home, "keys"), "alice", "ed25519");
      fixture.write("~/approvers", signerLine("alice@acme.dev", alice));
      fixture.write(
        "~/.skill-central/config.yaml",
        `store: ${join(fixture.home, "state.db")}\npolicy:\n  approvers: ~/approvers\n  approval: all\n`,
      );
      for (const s of JSON.parse(await cli(["audit", "--format", "json"])).skills as { id: string; digest: string }[])
        digests[s.id] = s.digest;
      for (const id of ["deploy", "other", "leak"])
        await cli(["approve", `${id}@${digests[id]}`, "--reason", `read ${id}`, "--key", alice.file]);
      await cli(["block", "leak", "--reason", "leaks the deploy token", "--key", alice.file]);
      // A new version of deploy: it waits, naming what changed since the approved digest.
      fixture.write(".skills/deploy.yaml", promptSkill("deploy", { prompt: "Deploy, and print the token" }));
      [board, browser] = await Promise.all([startBoard(target, fixture.cwd, fixture.home), launchChromium()]);
      page = await browser.newPage();
      await page.goto(board.url);
      await page.getByRole("region", { name: "Admin log (latest)" }).waitFor();
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await board?.stop();
      fixture?.cleanup();
    });

    const overview = () => page.getByRole("region", { name: "Overview" });
    const rowsOf = async (name: string) =>
      (await overview().getByRole("table", { name }).getByRole("row").allInnerTexts()).map((r) =>
        r.split(/\s*\t\s*|\s*\n\s*/).join(" | "),
      );

    test("/api/summary carries governance: the block (who, when, reason), what awaits (layer, digest, files changed) and the log", async () => {
      const summary = (await (
        await fetch(new URL("api/summary", board.base), { headers: board.authorized() })
      ).json()) as { governance: GovernanceView };
      const g = summary.governance;
      if (!g.on) throw new Error("governance is off on a governed project");
      expect(g.blocked).toEqual([
        { id: "leak", principal: "alice@acme.dev", at: expect.any(String), reason: "leaks the deploy token" },
      ]);
      expect(g.awaiting).toHaveLength(1);
      expect(g.awaiting[0]).toMatchObject({ id: "deploy", layer: expect.any(String) });
      expect(g.awaiting[0]!.digest).toMatch(DIGEST);
      expect(g.awaiting[0]!.digest).not.toBe(digests.deploy);
      expect(g.awaiting[0]!.why).toContain(`the approved one was ${digests.deploy}`);
      expect(g.awaiting[0]!.why).toContain("since then: changed deploy.yaml");
      expect(g.log.map((e) => `${e.action} ${e.skill} ${e.verified}`)).toEqual([
        "block leak true",
        "approve leak true",
        "approve other true",
        "approve deploy true",
      ]);
      expect(JSON.stringify(summary)).not.toContain("BEGIN SSH SIGNATURE");
    });

    test('the Overview: "Blocked", "Awaiting approval" and "Admin log (latest)" in plain words', async () => {
      expect(await rowsOf("Blocked")).toEqual([
        "Skill | Version | Blocked by | When | Reason",
        expect.stringMatching(/^leak \| every version \| alice@acme\.dev \| .+ \| leaks the deploy token$/),
      ]);
      const waiting = await rowsOf("Awaiting approval");
      expect(waiting[0]).toBe("Skill | Layer | Digest | Why");
      expect(waiting[1]).toMatch(
        /^deploy \| .+ \| sha256:[0-9a-f]{64} \| awaiting approval: .*since then: changed deploy\.yaml$/,
      );
      const log = await rowsOf("Admin log (latest)");
      expect(log[0]).toBe("When | Who | Action | Skill | Digest | Reason | Signature");
      expect(log[1]).toMatch(
        / \| alice@acme\.dev \| block \| leak \| every version \| leaks the deploy token \| verified$/,
      );
      expect(log[4]).toContain(`| approve | deploy | ${digests.deploy} | read deploy | verified`);
    });

    test("a skill's page shows its approval (who, when, digest); a blocked skill's shows the block and its reason", async () => {
      await page.goto(new URL("#/skill/other", board.base).href);
      const approval = page.getByLabel("Approval", { exact: true });
      await approval.waitFor();
      expect(await approval.textContent()).toMatch(
        new RegExp(`^Approved by alice@acme\\.dev on .+ at ${digests.other}$`),
      );
      await page.goto(new URL("#/skill/leak", board.base).href);
      const block = page.getByLabel("Block", { exact: true });
      await block.waitFor();
      expect(await block.textContent()).toMatch(/^Blocked by alice@acme\.dev on .+: leaks the deploy token$/);
      await page.goto(new URL("#/skill/deploy", board.base).href);
      const held = page.getByRole("region", { name: "Skill" }).getByLabel("Awaiting approval", { exact: true });
      await held.waitFor();
      expect(await held.textContent()).toContain("since then: changed deploy.yaml");
    });

    for (const view of [
      { name: "the governed Overview", hash: "#/", waitFor: "Admin log (latest)" },
      { name: "an approved skill", hash: "#/skill/other", waitFor: "Usage" },
    ])
      for (const theme of ["light", "dark"] as const)
        test(`axe finds no serious or critical violation: ${view.name}, ${theme}`, async () => {
          const context = await browser.newContext({
            colorScheme: theme,
            viewport: { width: 1024, height: 900 },
            bypassCSP: true,
          });
          try {
            const checked = await context.newPage();
            await checked.goto(new URL(view.hash, board.url).href);
            await checked.getByRole("region", { name: view.waitFor }).waitFor();
            const violations = await seriousViolations(checked);
            expect(violations).toEqual([]);
          } finally {
            await context.close();
          }
        });
  });
}
