import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * The official MCP conformance suite against `skill-central mcp --http`, in both eras, driven by
 * docs/conformance.md: which scenarios run, which checks are allowed to report what, and why the
 * others do not apply.
 */
const DOC = join(REPO_ROOT, "docs", "conformance.md");
const SUITE = join(
  dirname(Bun.resolveSync("@modelcontextprotocol/conformance/package.json", REPO_ROOT)),
  "dist",
  "index.js",
);
const ERAS = ["2025-11-25", "default"] as const;
type Era = (typeof ERAS)[number];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: { untestable?: boolean };
}

/** Rows of the markdown table that follows `heading`, as cells (backticks stripped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const at = markdown.indexOf(heading);
  if (at < 0) throw new Error(`${DOC} has no section "${heading}"`);
  const rows: string[][] = [];
  let seenTable = false;
  for (const line of markdown.slice(at + heading.length).split("\n")) {
    if (line.startsWith("|")) {
      seenTable = true;
      const cells = line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim().replace(/`/g, ""));
      if (!cells.every((c) => /^-+$/.test(c))) rows.push(cells);
    } else if (seenTable) break;
  }
  return rows.slice(1);
}

/** How a scenario runs in one era: not at all (the suite skips it), or run, with `--force` where the doc says so. */
type Expected = "skipped" | "runs" | "runs --force";

interface Plan {
  runs: Map<string, Record<Era, Expected>>;
  untestable: Map<string, string>;
  warnings: Set<string>;
  /** Checks a skills-extension scenario may skip, by era. */
  skips: Map<string, Era>;
  notApplicable: Set<string>;
}

/** The skills extension's scenarios: every check must run, bar the documented skips. */
const STRICT_SCENARIO = /^sep-2640-/;

function readPlan(markdown: string): Plan {
  const runs = new Map<string, Record<Era, Expected>>();
  for (const [name, legacy, modern] of tableAfter(markdown, "## Scenarios that run")) {
    const cell = (text: string | undefined): Expected =>
      !text?.startsWith("runs") ? "skipped" : text.includes("--force") ? "runs --force" : "runs";
    runs.set(name!, { "2025-11-25": cell(legacy), default: cell(modern) });
  }
  const untestable = new Map<string, string>();
  const warnings = new Set<string>();
  const skips = new Map<string, Era>();
  for (const [check, status] of tableAfter(markdown, "## Allowed checks")) {
    if (status!.startsWith("warning")) warnings.add(check!);
    else if (status!.startsWith("skipped on "))
      skips.set(check!, status!.slice("skipped on ".length) === "2025-11-25" ? "2025-11-25" : "default");
    else untestable.set(check!, status!);
  }
  const notApplicable = new Set(tableAfter(markdown, "## Scenarios that do not apply").map(([name]) => name!));
  return { runs, untestable, warnings, skips, notApplicable };
}

async function suite(args: string[]): Promise<{ code: number; stdout: string }> {
  const proc = Bun.spawn([process.execPath, SUITE, ...args], {
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  clearTimeout(timer);
  return { code, stdout: stdout + stderr };
}

/** What one scenario run came to: nothing, or the problems (each naming the check). */
async function runScenario(
  url: string,
  scenario: string,
  era: Era,
  expected: Expected,
  plan: Plan,
  outRoot: string,
): Promise<string[]> {
  const out = join(outRoot, `${scenario}-${era}`);
  const force = expected === "runs --force" ? ["--force"] : [];
  const { stdout } = await suite([
    "server",
    "--url",
    url,
    "--scenario",
    scenario,
    ...(era === "default" ? [] : ["--spec-version", era]),
    ...force,
    "-o",
    out,
  ]);
  const skipped = /SKIPPED: scenario '[^']+' is not applicable/.test(stdout);
  if (expected === "skipped")
    return skipped ? [] : [`${scenario} (${era}): ran, but docs/conformance.md says the suite skips it`];
  if (skipped) return [`${scenario} (${era}): the suite skipped it: ${stdout.trim().slice(0, 300)}`];
  const dirs = readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory());
  if (dirs.length !== 1) return [`${scenario} (${era}): no results (${stdout.trim().slice(0, 300)})`];
  const checks = (await Bun.file(join(out, dirs[0]!.name, "checks.json")).json()) as Check[];
  const problems: string[] = [];
  for (const check of checks) {
    if (check.status === "SKIPPED" && STRICT_SCENARIO.test(scenario) && plan.skips.get(check.id) !== era) {
      problems.push(`${scenario} (${era}): SKIPPED ${check.id}: ${check.errorMessage ?? ""}`);
      continue;
    }
    if (check.status === "SUCCESS" || check.status === "INFO" || check.status === "SKIPPED") continue;
    if (check.status === "FAILURE" && check.details?.untestable === true && plan.untestable.has(check.id)) continue;
    if (check.status === "WARNING" && plan.warnings.has(check.id)) continue;
    problems.push(`${scenario} (${era}): ${check.status} ${check.id}: ${check.errorMessage ?? ""}`);
  }
  if (!checks.some((c) => c.status === "SUCCESS")) problems.push(`${scenario} (${era}): not one check succeeded`);
  return problems;
}

/** Runs `jobs` with at most `width` at a time (the suite is a process each; CI has two cores). */
async function pooled<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]!();
      }
    }),
  );
  return results;
}

describe("MCP conformance suite, both eras", () => {
  let fixture: Fixture;
  let sessions: HttpServer;
  let stateless: HttpServer;
  let plan: Plan;
  let outRoot: string;

  beforeAll(async () => {
    plan = readPlan(await Bun.file(DOC).text());
    fixture = makeFixture({
      ".skills/echo.yaml": "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object }\n",
      // The skills scenarios test the first skill they find: an Agent Skills folder with subfolders, sorting first.
      ".skills/api-client/SKILL.md":
        "---\nname: api-client\ndescription: Generate a typed API client from an OpenAPI document\nlicense: MIT\n---\nFollow references/guide.md, then run scripts/generate.sh.\n",
      ".skills/api-client/references/guide.md": "# Guide\n\nOne client per service.\n",
      ".skills/api-client/scripts/generate.sh": "#!/bin/sh\necho generating\n",
    });
    [sessions, stateless] = await Promise.all([
      startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home }),
      startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home, args: ["--stateless"] }),
    ]);
    outRoot = mkdtempSync(join(tmpdir(), "skill-central-conformance-"));
  });
  afterAll(async () => {
    await Promise.all([sessions?.stop(), stateless?.stop()]);
    fixture?.cleanup();
    if (outRoot) rmSync(outRoot, { recursive: true, force: true });
  });

  test("docs/conformance.md accounts for every server scenario of the pinned suite, once", async () => {
    const { stdout } = await suite(["list"]);
    const listed = stdout
      .slice(0, stdout.indexOf("Client scenarios"))
      .match(/^ {2}- (\S+)/gm)!
      .map((l) => l.slice(4));
    expect(listed.length).toBeGreaterThan(40);
    const decided = [...plan.runs.keys(), ...plan.notApplicable];
    expect(decided.filter((name, i) => decided.indexOf(name) !== i)).toEqual([]);
    expect(listed.filter((name) => !decided.includes(name))).toEqual([]);
    expect(decided.filter((name) => !listed.includes(name))).toEqual([]);
    for (const required of [
      "server-initialize",
      "server-session-lifecycle",
      "server-stateless",
      "ping",
      "prompts-list",
      "tools-list",
      "resources-list",
      "caching",
      "dns-rebinding-protection",
      "sep-2164-resource-not-found",
      "http-header-validation",
    ]) {
      expect(plan.runs.has(required)).toBe(true);
    }
    // The skills extension runs in both eras, the older one with --force (an extension is not on the spec timeline).
    for (const skills of ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]) {
      expect(plan.runs.get(skills)).toEqual({ "2025-11-25": "runs --force", default: "runs" });
    }
  });

  test("every scenario that applies passes in both eras: no failure or warning beyond the documented ones", async () => {
    const jobs: (() => Promise<string[]>)[] = [];
    for (const [scenario, eras] of plan.runs) {
      for (const era of ERAS) jobs.push(() => runScenario(sessions.url, scenario, era, eras[era], plan, outRoot));
    }
    // The stateless wire again, against a --stateless server.
    for (const [scenario, eras] of plan.runs) {
      if (eras.default !== "skipped" && (eras["2025-11-25"] === "skipped" || STRICT_SCENARIO.test(scenario)))
        jobs.push(() =>
          runScenario(stateless.url, scenario, "default", eras.default, plan, join(outRoot, "stateless")),
        );
    }
    const problems = (await pooled(jobs, 3)).flat();
    expect(problems).toEqual([]);
  }, 240_000);

  test("the allowances are exact: server-stateless reports the documented not-testable checks and nothing else", async () => {
    const out = join(outRoot, "exact");
    await suite(["server", "--url", sessions.url, "--scenario", "server-stateless", "-o", out]);
    const dir = readdirSync(out)[0]!;
    const checks = (await Bun.file(join(out, dir, "checks.json")).json()) as Check[];
    const notSucceeded = checks
      .filter((c) => c.status !== "SUCCESS")
      .map((c) => `${c.status} ${c.id}${c.details?.untestable ? " (untestable)" : ""}`);
    expect(notSucceeded.sort()).toEqual(
      [
        ...[...plan.untestable.keys()].map((id) => `FAILURE ${id} (untestable)`),
        ...[...plan.warnings].map((id) => `WARNING ${id}`),
      ].sort(),
    );
  }, 60_000);
});
