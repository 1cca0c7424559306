import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { applyInstall, applyUninstall, type RunCommand, type Verify } from "../../src/install/apply.ts";
import { clientById } from "../../src/install/clients/index.ts";
import type { Reach } from "../../src/install/entry.ts";
import { hostFromEnv, type Host } from "../../src/install/host.ts";
import type { Launch } from "../../src/install/launch.ts";
import { planInstall, planUninstall } from "../../src/install/plan.ts";
import { clientStatuses } from "../../src/install/status.ts";

/**
 * Planning and applying with the two outside effects replaced: `verify` (starting the server)
 * and `run` (the claude CLI). The real ones are exercised end to end in test/e2e/install.test.ts.
 */

const LAUNCH: Launch = { kind: "binary", command: "/opt/skill-central", prefix: [] };
let home: string;
let project: string;
let host: Host;

beforeEach(() => {
  const root = mkdtempSync(join(tmpdir(), "skill-central-plan-"));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  host = hostFromEnv({ HOME: home, PATH: "" }, "linux");
});
afterEach(() => rmSync(dirname(home), { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const options = (extra: { force?: boolean; scope?: "user" | "project" } = {}) =>
  ({ scope: extra.scope ?? "user", project, host, force: extra.force ?? false }) as const;
const passing: Verify = async () => ({
  ok: true,
  serverName: "skill-central",
  serverVersion: "0.1.0",
  protocolVersion: "2025-11-25",
  prompts: 12,
  tools: 2,
  resources: 3,
});
const failing: Verify = async () => ({ ok: false, reason: "exited with code 1 before answering initialize" });

describe("plans", () => {
  test("create, add, unchanged, differs, update", () => {
    const cursor = clientById("cursor");
    const created = planInstall(cursor, options(), LAUNCH);
    expect(created.action).toBe("create");
    expect(created.diff).toStartWith("--- /dev/null\n+++ ~/.cursor/mcp.json\n");

    const path = write(
      join(home, ".cursor", "mcp.json"),
      '{\n  "mcpServers": {\n    "other": { "command": "o" }\n  }\n}\n',
    );
    const added = planInstall(cursor, options(), LAUNCH);
    expect(added.action).toBe("add");
    expect(added.diff).toContain('+    "skill-central": {');

    write(path, created.after);
    expect(planInstall(cursor, options(), LAUNCH).action).toBe("unchanged");

    const other: Launch = { kind: "binary", command: "/elsewhere/skill-central", prefix: [] };
    const differs = planInstall(cursor, options(), other);
    expect(differs.action).toBe("differs");
    expect(differs.message).toBe(
      "an entry named skill-central already exists in ~/.cursor/mcp.json and differs; run with --force to replace it",
    );
    expect(differs.diff).toContain(
      '-      "command": "/opt/skill-central",\n+      "command": "/elsewhere/skill-central",',
    );
    expect(planInstall(cursor, options({ force: true }), other).action).toBe("update");
  });

  test("defaults do not make an entry differ (Claude's own `type` and empty `env`)", () => {
    write(
      join(home, ".claude.json"),
      JSON.stringify({ mcpServers: { "skill-central": { command: "/opt/skill-central", args: ["mcp"] } } }),
    );
    expect(planInstall(clientById("claude-code"), options(), LAUNCH).action).toBe("unchanged");
  });

  test("a broken file is an error with its position; a client without a project file says so; a refusal is explained", () => {
    write(join(home, ".gemini", "settings.json"), '{\n  "theme": "dark"\n  "x": 1\n}\n');
    const broken = planInstall(clientById("gemini"), options(), LAUNCH);
    expect(broken).toMatchObject({
      action: "error",
      message: "~/.gemini/settings.json:3:3: comma expected; the file is left untouched (fix it, then run this again)",
    });
    expect(planInstall(clientById("windsurf"), options({ scope: "project" }), LAUNCH).message).toBe(
      "Windsurf has no project config file (only ~/.codeium/windsurf/mcp_config.json); use --scope user",
    );
    expect(
      planInstall(clientById("claude-desktop"), options(), LAUNCH, { url: "http://127.0.0.1:1/mcp" }).message,
    ).toContain("connectors");
  });

  test("Claude Code with its CLI on PATH: the plan is claude mcp commands", () => {
    const bin = join(dirname(home), "bin");
    write(join(bin, "claude"), "");
    const withCli = {
      ...options(),
      host: { ...host, which: (c: string) => (c === "claude" ? join(bin, "claude") : null) },
    };
    expect(planInstall(clientById("claude-code"), withCli, LAUNCH).commands).toEqual([
      [join(bin, "claude"), "mcp", "add", "--scope", "user", "skill-central", "--", "/opt/skill-central", "mcp"],
    ]);
  });
});

describe("applying", () => {
  test("written, backed up, and verified with exactly the entry's command line in the client's folder", async () => {
    const path = write(join(home, ".codeium", "windsurf", "mcp_config.json"), '{\n  // mine\n  "mcpServers": {}\n}\n');
    const seen: Reach[] = [];
    const outcome = await applyInstall(planInstall(clientById("windsurf"), options(), LAUNCH), async (reach) => {
      seen.push(reach);
      return passing(reach);
    });
    expect(outcome).toMatchObject({
      ok: true,
      message:
        "added to ~/.codeium/windsurf/mcp_config.json; skill-central 0.1.0 answered initialize and listed 12 prompts, 2 tools, 3 resources",
    });
    expect(outcome.backup).toMatch(/^~\/\.codeium\/windsurf\/mcp_config\.json\.skill-central-\d{8}T\d{6}Z\.bak$/);
    expect(readFileSync(join(home, outcome.backup!.slice(2)), "utf8")).toBe('{\n  // mine\n  "mcpServers": {}\n}\n');
    expect(seen).toEqual([
      {
        transport: "stdio",
        command: "/opt/skill-central",
        args: ["mcp", "--cwd", project],
        env: { HOME: home, PATH: "" },
        cwd: home,
      },
    ]);
    expect(readFileSync(path, "utf8")).toContain("// mine");
  });

  test("a failed verification puts an existing file back byte for byte and removes a new one", async () => {
    const existing = write(join(home, ".codex", "config.toml"), '# mine\nmodel = "o3"\n');
    const outcome = await applyInstall(planInstall(clientById("codex"), options(), LAUNCH), failing);
    expect(outcome).toMatchObject({
      ok: false,
      message:
        "verification failed: exited with code 1 before answering initialize\n  ~/.codex/config.toml was restored as it was (from its backup)",
    });
    expect(readFileSync(existing, "utf8")).toBe('# mine\nmodel = "o3"\n');
    expect(readdirSync(join(home, ".codex"))).toEqual(["config.toml"]);

    const fresh = await applyInstall(planInstall(clientById("cursor"), options(), LAUNCH), failing);
    expect(fresh.message).toEndWith("~/.cursor/mcp.json was restored as it was (removed: it did not exist before)");
    expect(existsSync(join(home, ".cursor"))).toBe(false);
  });

  test("an unchanged entry is still verified", async () => {
    const plan = planInstall(clientById("gemini"), options(), LAUNCH);
    await applyInstall(plan, passing);
    const again = planInstall(clientById("gemini"), options(), LAUNCH);
    expect(again.action).toBe("unchanged");
    expect(await applyInstall(again, failing)).toEqual({
      ok: false,
      message: "already installed, but it does not start: exited with code 1 before answering initialize",
      check: { ok: false, reason: "exited with code 1 before answering initialize" },
    });
  });

  test("the claude CLI: its failure leaves the file as it was; an entry it did not write is rolled back", async () => {
    const path = write(join(home, ".claude.json"), '{"numStartups": 3}\n');
    const withCli = { ...options(), host: { ...host, which: (c: string) => (c === "claude" ? "/fake/claude" : null) } };
    const failingRun: RunCommand = async () => ({
      code: 1,
      output: "MCP server skill-central already exists in user config",
    });
    const failed = await applyInstall(planInstall(clientById("claude-code"), withCli, LAUNCH), passing, failingRun);
    expect(failed.message).toBe(
      "`claude mcp add --scope user skill-central -- /opt/skill-central mcp` failed (exit 1): MCP server skill-central already exists in user config; ~/.claude.json is as it was",
    );
    expect(readFileSync(path, "utf8")).toBe('{"numStartups": 3}\n');

    const wrongRun: RunCommand = async () => {
      writeFileSync(
        path,
        JSON.stringify(
          {
            numStartups: 3,
            mcpServers: { "skill-central": { type: "stdio", command: "/opt/other", args: [], env: {} } },
          },
          null,
          2,
        ),
      );
      return { code: 0, output: "" };
    };
    const wrong = await applyInstall(planInstall(clientById("claude-code"), withCli, LAUNCH), passing, wrongRun);
    expect(wrong.message).toStartWith(
      "verification failed: ~/.claude.json holds a different skill-central entry than intended",
    );
    expect(readFileSync(path, "utf8")).toBe('{"numStartups": 3}\n');
  });

  test("uninstall removes only our entry, keeps a backup, and is absent afterwards", async () => {
    const before =
      '{\n  "context_servers": {\n    "other": { "command": "o", "args": [] }\n  },\n  "theme": "One Dark" // mine\n}\n';
    const path = write(join(home, ".config", "zed", "settings.json"), before);
    await applyInstall(planInstall(clientById("zed"), options(), LAUNCH), passing);
    expect(readFileSync(path, "utf8")).not.toBe(before);
    const removed = await applyUninstall(planUninstall(clientById("zed"), options()));
    expect(removed.ok).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(planUninstall(clientById("zed"), options()).action).toBe("absent");
  });
});

describe("doctor's view of each client", () => {
  test("current, this install with other options, another install (version probed), HTTP, broken, none", async () => {
    write(
      join(home, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          "skill-central": { command: "/opt/skill-central", args: ["mcp", "--cwd", "${workspaceFolder}"] },
        },
      }),
    );
    write(
      join(home, ".codeium", "windsurf", "mcp_config.json"),
      JSON.stringify({
        mcpServers: { "skill-central": { command: "/opt/skill-central", args: ["mcp", "--cwd", "/old/project"] } },
      }),
    );
    write(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({ mcpServers: { "skill-central": { command: "/usr/local/bin/skill-central", args: ["mcp"] } } }),
    );
    write(join(home, ".codex", "config.toml"), '[mcp_servers.skill-central]\nurl = "https://skills.example.com/mcp"\n');
    write(join(home, ".config", "zed", "settings.json"), "{ broken");
    write(
      join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { "skill-central": { command: "npx", args: ["-y", "something-else"] } } }),
    );
    const probes: string[][] = [];
    const statuses = await clientStatuses(host, project, LAUNCH, async (argv) => {
      probes.push([...argv]);
      return "version 0.0.9";
    });
    const byId = Object.fromEntries(
      statuses.map((s) => [s.id, s.entries.map((e) => [e.scope, e.state, e.detail ?? ""])]),
    );
    expect(byId).toEqual({
      "claude-code": [
        ["user", "none", ""],
        ["project", "other", "another command: npx -y something-else"],
      ],
      "claude-desktop": [["user", "none", ""]],
      cursor: [["user", "current", "this install (0.1.0)"]],
      windsurf: [
        ["user", "this-install", "this install, other options: mcp --cwd /old/project (run install --force to update)"],
      ],
      vscode: [["user", "none", ""]],
      codex: [["user", "http", "https://skills.example.com/mcp"]],
      zed: [["user", "broken", "1:3: unexpected character"]],
      gemini: [["user", "other", "another install: /usr/local/bin/skill-central mcp (version 0.0.9)"]],
      opencode: [["user", "none", ""]],
    });
    // Only something named like skill-central is ever run, and only with --version.
    expect(probes).toEqual([["/usr/local/bin/skill-central", "--version"]]);
    expect(statuses.find((s) => s.id === "cursor")?.detected).toBe("~/.cursor exists");
  });
});
