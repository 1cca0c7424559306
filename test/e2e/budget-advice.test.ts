import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { catalogFixtureFiles } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli } from "./cli-run.ts";

/**
 * `budget` says what to do (issue 51, item 6): a client over its published budget is told the
 * line that applies it and what it is then sent, and following that advice gives exactly that;
 * `--fail-over` makes CI fail on any budget, published ones included.
 */
describe("budget over a published budget, through the real CLI", () => {
  let fixture: Fixture;
  beforeAll(() => {
    fixture = makeFixture(catalogFixtureFiles());
  });
  afterAll(() => fixture.cleanup());

  test("names the line that applies Claude Code's budget and what Claude Code is sent then; exit 0 without --fail-over", async () => {
    const run = await runCli(["budget", "--client", "claude-code"], fixture.cwd, fixture.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("(published budget, not applied) OVER\n");
    expect(run.stdout).toContain("to apply it, add `tokenBudget: 2000` to skill-central.yaml");
    expect(run.stdout).toMatch(/ {2}then Claude Code gets the catalog plan: [\d,]+ tokens instead of [\d,]+\n/);
    expect(run.stdout).toMatch(
      / {4}\d+ prompts leave its prompt list \(no slash command; .*\)\n {4}\d+ tool skills go behind run_skill_tool\n/,
    );
  });

  test("--fail-over exits 1 and names the client; --json carries the same advice as `apply`", async () => {
    const failing = await runCli(["budget", "--client", "claude-code", "--fail-over"], fixture.cwd, fixture.home);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("1 client over budget: Claude Code\n");
    const json = await runCli(["budget", "--client", "claude-code", "--json"], fixture.cwd, fixture.home);
    const [client] = (JSON.parse(json.stdout) as { clients: { apply?: { line: string; applied: { plan: string } } }[] })
      .clients;
    expect(client?.apply?.line).toBe("tokenBudget: 2000");
    expect(client?.apply?.applied.plan).toBe("catalog");
  });

  test("following the advice gives what it promised: the catalog plan at the tokens it named, and --fail-over passes", async () => {
    const advised = await runCli(["budget", "--client", "claude-code", "--json"], fixture.cwd, fixture.home);
    const promised = (
      JSON.parse(advised.stdout) as { clients: { apply: { line: string; applied: { tokens: number } } }[] }
    ).clients[0]!.apply;
    const applied = makeFixture(catalogFixtureFiles());
    try {
      applied.write("skill-central.yaml", `${catalogFixtureFiles()["skill-central.yaml"]}${promised.line}\n`);
      const run = await runCli(
        ["budget", "--client", "claude-code", "--fail-over", "--json"],
        applied.cwd,
        applied.home,
      );
      expect(run.code).toBe(0);
      const [client] = (JSON.parse(run.stdout) as { clients: { plan: string; tokens: number; apply?: unknown }[] })
        .clients;
      expect(client).toMatchObject({ plan: "catalog", tokens: promised.applied.tokens });
      expect(client?.apply).toBeUndefined();
    } finally {
      applied.cleanup();
    }
  });
});
