import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import {
  distinctLaunches,
  fillPlaceholders,
  ideOf,
  launchProblem,
  type Launch,
  type LaunchKind,
  type PageLaunches,
  pageLaunches,
  SERVER_NAME,
} from "../helpers/ide-snippets.ts";
import { connect } from "../helpers/server.ts";

/**
 * The hand-written IDE configuration in docs/install-ides.md (the README links there) is what
 * users paste: every `mcpServers` JSON snippet and every `claude mcp add` line must start our
 * server. Each is checked against the forms we support, and the binary and source forms are then
 * started for real, placeholders filled in. The npx and bunx forms need the published package:
 * test/e2e/npm-registry.test.ts starts them from a local registry. That each snippet is what
 * `install` writes is checked in test/e2e/install.test.ts.
 */

const lineOf = (launch: Launch) => Number(/:(\d+)/.exec(launch.where)?.[1]);

describe("docs/install-ides.md hand-written IDE configuration", () => {
  let shown: PageLaunches;

  beforeAll(async () => {
    shown = await pageLaunches();
  });

  test("the checker accepts our four launch forms and rejects near misses", () => {
    const options = shown.options;
    expect(options.get("--cwd")).toBe(true);
    const ok = (command: string, args: string[]) => launchProblem(command, args, options);
    expect(ok("/path/to/skill-central", [])).toEqual({ kind: "binary" });
    expect(ok("C:\\path\\to\\skill-central.exe", ["mcp"])).toEqual({ kind: "binary" });
    expect(ok("npx", ["-y", "skill-central", "mcp"])).toEqual({ kind: "npx" });
    expect(ok("npx", ["-y", "skill-central", "mcp", "--cwd", "/path/to/project"])).toEqual({ kind: "npx" });
    expect(ok("bunx", ["skill-central", "mcp", "--cwd", "/path/to/project"])).toEqual({ kind: "bunx" });
    expect(ok("bun", ["/path/to/skill-central/src/cli.ts", "mcp"])).toEqual({ kind: "source" });
    for (const [command, args] of [
      ["npx", ["skill-central", "mcp"]], // would prompt to install, and an IDE cannot answer
      ["npx", ["-y", "skill-centrl", "mcp"]],
      ["npx", ["-y", "skill-central", "serve"]],
      ["npx", ["-y", "skill-central", "--version"]],
      ["bunx", ["skill-centrl", "mcp"]],
      ["bunx", ["skill-central", "serve"]],
      ["bun", ["/path/to/skill-central/src/server.ts"]],
      ["bun", ["src/cli.ts", "mcp"]],
      ["node", ["/path/to/skill-central/src/cli.ts"]],
      ["/home/alice/bin/skill-central", ["mcp"]],
      ["/path/to/skill-central", ["mcp", "--cwd"]],
      ["/path/to/skill-central", ["mcp", "--stdio"]],
      ["/path/to/skill-central", ["--version"]],
    ] as [string, string[]][]) {
      expect(ok(command, args)).toHaveProperty("problem");
    }
  });

  test("every mcpServers snippet and claude mcp add line would start skill-central", () => {
    expect(shown.problems).toEqual([]);
  });

  test("npx leads: every IDE section's first command line is npx -y skill-central mcp, and Claude Code and mcpServers JSON also show the binary, bunx and a checkout", () => {
    const { launches, page } = shown;
    const has = (from: Launch["from"], kind: LaunchKind) => launches.some((l) => l.from === from && l.kind === kind);
    for (const kind of ["npx", "binary", "bunx", "source"] as const) {
      expect({ kind, claude: has("claude", kind) }).toEqual({ kind, claude: true });
      expect({ kind, json: has("json", kind) }).toEqual({ kind, json: true });
    }
    // In each IDE section the first snippet is the one that needs only Node.
    const firstBySection = new Map<string, Launch>();
    for (const launch of [...launches].sort((a, b) => lineOf(a) - lineOf(b))) {
      const section = ideOf(page, launch);
      if (section && !firstBySection.has(section)) firstBySection.set(section, launch);
    }
    for (const ide of ["Claude Code", "Cursor", "Windsurf", "VS Code", "Codex"])
      expect({ ide, kind: firstBySection.get(ide)?.kind }).toEqual({ ide, kind: "npx" });
    // VS Code and Codex read their own formats; each also shows the binary.
    for (const from of ["vscode", "toml"] as const)
      expect({ from, kinds: [...new Set(launches.filter((l) => l.from === from).map((l) => l.kind))].sort() }).toEqual({
        from,
        kinds: ["binary", "npx"],
      });
    expect(page).toContain(".cursor/mcp.json");
    expect(page).toContain("~/.codeium/windsurf/mcp_config.json");
    expect(page).toContain(".vscode/mcp.json");
    expect(page).toContain("~/.codex/config.toml");
    expect(page).toContain("skill-central --version");
  });

  describe("the binary and source forms, placeholders filled in, answer initialize as skill-central", () => {
    let fixture: Fixture;
    let binary: string;

    beforeAll(async () => {
      fixture = makeFixture();
      binary = await buildForTests();
    }, 120_000);
    afterAll(() => fixture?.cleanup());

    test("each distinct command line starts", async () => {
      const distinct = distinctLaunches(shown.launches, ["binary", "source"]);
      expect(distinct.length).toBeGreaterThan(0);
      for (const launch of distinct) {
        const command = launch.kind === "binary" ? binary : process.execPath;
        const session = await connect(
          { name: launch.where, command, args: fillPlaceholders(launch.args, fixture.cwd) },
          fixture.cwd,
          fixture.home,
        );
        try {
          expect({ where: launch.where, server: session.client.getServerVersion()?.name }).toEqual({
            where: launch.where,
            server: SERVER_NAME,
          });
        } finally {
          await session.close();
        }
      }
    });
  });
});
