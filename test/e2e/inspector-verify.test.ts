import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture } from "../helpers/fixture.ts";
import { runBounded } from "../helpers/processes.ts";
import { REPO_ROOT, SOURCE_ENTRY } from "../helpers/server.ts";

/**
 * The MCP Inspector CLI (2.12, installed by .ci/run in .ci/tools) checks the skills extension as a
 * host does: `--method skills/list --verify` reads every skill and file it lists, checks each
 * against SEP-2640 and the digest advertised, and exits 7 when any fails. Run against the source
 * entry and the compiled binary over stdio, on the built-in skills and on a project whose folder
 * skill has files beside its SKILL.md. Skipped where the tool is not installed, except on CI.
 */
const INSPECTOR = join(REPO_ROOT, ".ci", "tools", "node_modules", ".bin", "mcp-inspector");
const ON_CI = process.env.CI === "true";
const HAVE_INSPECTOR = existsSync(INSPECTOR);

const fixture = makeFixture({
  ".skills/release-notes/SKILL.md":
    "---\nname: release-notes\ndescription: Write release notes from the merged pull requests of a milestone\n---\n\nRead `references/style.md`, then run `scripts/collect.sh`.\n",
  ".skills/release-notes/references/style.md": "# Style\n\nOne line per change, newest first.\n",
  ".skills/release-notes/scripts/collect.sh": '#!/bin/sh\ngit log --oneline "$1..HEAD"\n',
});
afterAll(() => fixture.cleanup());

let binary = "";
beforeAll(async () => {
  if (HAVE_INSPECTOR) binary = await buildForTests();
}, 120_000);

interface Report {
  name: string;
  ok: boolean;
  outcome: string;
  files: { uri: string; status: string }[];
}

async function verify(server: string[]): Promise<{ code: number | null; reports: Report[]; stderr: string }> {
  const run = await runBounded([INSPECTOR, "--cli", "--method", "skills/list", "--verify", ...server], {
    cwd: fixture.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: fixture.home, NO_COLOR: "1" },
    timeoutMs: 90_000,
  });
  const reports = run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Report);
  return { code: run.code, reports, stderr: run.stderr };
}

describe.if(HAVE_INSPECTOR || ON_CI)("the MCP Inspector CLI verifies skills/list as a host does", () => {
  test("the tool is installed on CI (npm ci --prefix .ci/tools)", () => {
    expect(HAVE_INSPECTOR).toBe(true);
  });

  for (const [name, server] of [
    ["source", () => [process.execPath, SOURCE_ENTRY, "mcp"]],
    ["binary", () => [binary, "mcp"]],
  ] as const) {
    test(`${name}: every skill and file conforms and matches its digest, the folder skill's files too`, async () => {
      const { code, reports, stderr } = await verify(server());
      expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
      expect(reports.length).toBeGreaterThan(1);
      expect(reports.filter((r) => !r.ok || r.outcome !== "verified").map((r) => r.name)).toEqual([]);
      const release = reports.find((r) => r.name === "release-notes");
      expect(release?.files.map((f) => [f.uri, f.status]).sort()).toEqual([
        ["skill://release-notes/SKILL.md", "verified"],
        ["skill://release-notes/references/style.md", "verified"],
        ["skill://release-notes/scripts/collect.sh", "verified"],
      ]);
    }, 150_000);
  }
});
