import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { ideOf, ideSection, type Launch, pageLaunches } from "../helpers/ide-snippets.ts";
import { connect, REPO_ROOT, SOURCE_ENTRY } from "../helpers/server.ts";
import { runCli, type CliRun } from "./cli-run.ts";

/**
 * `skill-central install` / `uninstall` end to end, from source and from the compiled binary, for
 * all nine clients, each with a temporary HOME and project: into missing files, into files with
 * other servers and comments, --force, --dry-run, broken files, a failed verification, and
 * uninstall. Every written config is then read here with a parser of the test's own (Bun.JSONC,
 * Bun.TOML) and its entry started exactly as written, as ide-snippets.test.ts does for the
 * hand-written snippets of docs/install-ides.md.
 */

type Id = "claude-code" | "claude-desktop" | "cursor" | "windsurf" | "vscode" | "codex" | "zed" | "gemini" | "opencode";
const ALL: Id[] = [
  "claude-code",
  "claude-desktop",
  "cursor",
  "windsurf",
  "vscode",
  "codex",
  "zed",
  "gemini",
  "opencode",
];
const WITH_PROJECT_FILE: Id[] = ["claude-code", "cursor", "vscode", "codex", "zed", "gemini", "opencode"];

interface ClientFacts {
  /** Linux user file, relative to HOME; project file, relative to the project. */
  user: string;
  project?: string;
  /** The entry as written, read with the test's own parsers. */
  entry(text: string): { command: string; args: string[] } | undefined;
  /** The folder the client starts servers in. */
  startsIn: "project" | "home";
  /** A realistic file with another server and comments. */
  fixture: string;
  /** A broken file and the position the error must name. */
  broken: [string, string];
}

const jsonc = (text: string) => Bun.JSONC.parse(text) as Record<string, Record<string, Record<string, unknown>>>;
const fromMcpServers = (key: string) => (text: string) => {
  const entry = jsonc(text)[key]?.["skill-central"] as { command: string; args: string[] } | undefined;
  return entry && { command: entry.command, args: entry.args };
};
const asJsonFile = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const BROKEN_JSON: [string, string] = ['{\n  "theme": "dark"\n  "mcpServers": {}\n}\n', "3:3: comma expected"];

const CLIENTS: Record<Id, ClientFacts> = {
  "claude-code": {
    user: ".claude.json",
    project: ".mcp.json",
    entry: fromMcpServers("mcpServers"),
    startsIn: "project",
    fixture: asJsonFile({
      numStartups: 12,
      mcpServers: { github: { type: "stdio", command: "gh", args: ["mcp"], env: {} } },
      projects: { "/home/u/p": { allowedTools: [] } },
    }),
    broken: BROKEN_JSON,
  },
  "claude-desktop": {
    user: ".config/Claude/claude_desktop_config.json",
    entry: fromMcpServers("mcpServers"),
    startsIn: "home",
    fixture:
      '{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {\n    "filesystem": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]\n    }\n  }\n}\n',
    broken: ['{\n  // comments are not JSON\n  "mcpServers": {}\n}\n', "2:3: comments are not allowed in this file"],
  },
  cursor: {
    user: ".cursor/mcp.json",
    project: ".cursor/mcp.json",
    entry: fromMcpServers("mcpServers"),
    startsIn: "home",
    fixture: '{\n  // remote tools\n  "mcpServers": {\n    "linear": { "url": "https://mcp.linear.app/sse" }\n  }\n}\n',
    broken: BROKEN_JSON,
  },
  windsurf: {
    user: ".codeium/windsurf/mcp_config.json",
    entry: fromMcpServers("mcpServers"),
    startsIn: "home",
    fixture:
      '{\n    "mcpServers": {\n        "sentry": {\n            "serverUrl": "https://mcp.sentry.dev/mcp"\n        }\n    }\n}\n',
    broken: BROKEN_JSON,
  },
  vscode: {
    user: ".config/Code/User/mcp.json",
    project: ".vscode/mcp.json",
    entry: fromMcpServers("servers"),
    startsIn: "home",
    fixture:
      '{\n\t// Servers for every workspace\n\t"servers": {\n\t\t"memory": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "npx",\n\t\t\t"args": ["-y", "@modelcontextprotocol/server-memory"], // pinned later\n\t\t},\n\t},\n\t"inputs": [],\n}\n',
    broken: BROKEN_JSON,
  },
  codex: {
    user: ".codex/config.toml",
    project: ".codex/config.toml",
    entry: (text) => {
      const entry = (Bun.TOML.parse(text) as { mcp_servers?: Record<string, { command: string; args: string[] }> })
        .mcp_servers?.["skill-central"];
      return entry && { command: entry.command, args: entry.args };
    },
    startsIn: "project",
    fixture:
      '# Codex settings\nmodel = "o3" # default model\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = [\n  "--port", # [not a table]\n  "0",\n]\n\n# fast profile\n[profiles.fast]\nmodel = "o4-mini"\n',
    broken: ['model = "o3"\nsandbox = = "x"\n', "2:11: invalid value"],
  },
  zed: {
    user: ".config/zed/settings.json",
    project: ".zed/settings.json",
    entry: (text) => {
      const entry = jsonc(text).context_servers?.["skill-central"] as { command: string; args: string[] } | undefined;
      return entry && { command: entry.command, args: entry.args };
    },
    startsIn: "project",
    fixture:
      '// Zed settings\n{\n  "theme": "One Dark",\n  "context_servers": {\n    "postgres": {\n      "source": "custom",\n      "command": "pg-mcp",\n      "args": [],\n    },\n  },\n}\n',
    broken: BROKEN_JSON,
  },
  gemini: {
    user: ".gemini/settings.json",
    project: ".gemini/settings.json",
    entry: fromMcpServers("mcpServers"),
    startsIn: "project",
    fixture:
      '{\n  "theme": "GitHub",\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"] }\n  }\n}\n',
    broken: BROKEN_JSON,
  },
  opencode: {
    user: ".config/opencode/opencode.json",
    project: "opencode.json",
    entry: (text) => {
      const entry = (jsonc(text).mcp?.["skill-central"] as { command?: string[] } | undefined)?.command;
      return entry && { command: entry[0]!, args: entry.slice(1) };
    },
    startsIn: "project",
    fixture:
      '{\n  "$schema": "https://opencode.ai/config.json",\n  // local tools\n  "mcp": {\n    "everything": {\n      "type": "local",\n      "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],\n      "enabled": true,\n    },\n  },\n}\n',
    broken: BROKEN_JSON,
  },
};

interface Sandbox {
  root: string;
  home: string;
  project: string;
  /** A PATH with nothing on it, so no `claude` (or anything else) is found by accident. */
  bin: string;
  file(id: Id, scope?: "user" | "project"): string;
  write(id: Id, text: string, scope?: "user" | "project"): string;
  read(id: Id, scope?: "user" | "project"): string;
  cleanup(): void;
}

function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "skill-central-install-"));
  const [home, project, bin] = ["home", "project", "bin"].map((d) => join(root, d)) as [string, string, string];
  for (const d of [home, project, bin]) mkdirSync(d);
  const file = (id: Id, scope: "user" | "project" = "user") =>
    scope === "user" ? join(home, CLIENTS[id].user) : join(project, CLIENTS[id].project!);
  return {
    root,
    home,
    project,
    bin,
    file,
    write(id, text, scope) {
      const path = file(id, scope);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    read: (id, scope) => readFileSync(file(id, scope), "utf8"),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

const cli = (box: Sandbox, args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, box.project, box.home, { PATH: box.bin, NO_COLOR: "1", ...env });

/** What is in HOME besides Bun's own ~/.bun (which any bun process may create). */
const homeEntries = (box: Sandbox) => readdirSync(box.home).filter((name) => name !== ".bun");

/** Backups left beside a client's file. */
const backups = (path: string) =>
  existsSync(dirname(path))
    ? readdirSync(dirname(path)).filter(
        (f) => f.startsWith(`${path.split("/").pop()}.skill-central-`) && f.endsWith(".bak"),
      )
    : [];

/**
 * Starts the entry exactly as it is written (command and args, `${workspaceFolder}` filled in
 * as the editor does) in the folder the client starts servers in, with the SDK's own client.
 */
async function startEntry(
  box: Sandbox,
  id: Id,
  text: string,
  expected: { command: string; argsStart: string[] },
): Promise<void> {
  const entry = CLIENTS[id].entry(text);
  expect({ id, command: entry?.command, argsStart: entry?.args.slice(0, expected.argsStart.length) }).toEqual({
    id,
    command: expected.command,
    argsStart: expected.argsStart,
  });
  const args = entry!.args.map((a) => a.replaceAll("${workspaceFolder}", box.project));
  const session = await connect(
    { name: id, command: entry!.command, args },
    CLIENTS[id].startsIn === "project" ? box.project : box.home,
    box.home,
  );
  try {
    expect({ id, server: session.client.getServerVersion()?.name }).toEqual({ id, server: "skill-central" });
    expect((await session.client.listTools()).tools.length).toBeGreaterThan(0);
  } finally {
    await session.close();
  }
}

const SOURCE = { command: process.execPath, argsStart: [SOURCE_ENTRY, "mcp"] };

describe("install from source, user scope, all nine clients", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  test("--dry-run into missing files shows each new file and writes nothing", async () => {
    const run = await cli(box, ["install", ...ALL, "--dry-run"]);
    expect(run.code).toBe(0);
    for (const id of ALL) {
      expect(run.stdout).toContain(`--- /dev/null\n+++ ~/${CLIENTS[id].user}\n`);
      expect(existsSync(box.file(id))).toBe(false);
    }
    expect(run.stdout).toEndWith("Dry run: nothing was written.\n");
    expect(homeEntries(box)).toEqual([]);
  });

  test("into missing files: created, verified, and each entry starts when a test runs it as written", async () => {
    const run = await cli(box, ["install", ...ALL]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    for (const id of ALL)
      expect(run.stdout).toMatch(
        new RegExp(
          `: ok: created ~/${CLIENTS[id].user.replace(/\./g, "\\.")}; skill-central \\S+ answered initialize and listed \\d+ prompts, \\d+ tools, \\d+ resources`,
        ),
      );
    expect(run.stdout).toContain("Installed in 9 clients.");
    for (const id of ALL) await startEntry(box, id, box.read(id), SOURCE);
    // Global-only clients pin the project; Cursor and VS Code let the editor fill it in.
    expect(CLIENTS.windsurf.entry(box.read("windsurf"))!.args.slice(-2)).toEqual(["--cwd", box.project]);
    expect(CLIENTS.vscode.entry(box.read("vscode"))!.args.slice(-2)).toEqual(["--cwd", "${workspaceFolder}"]);
    expect(CLIENTS.codex.entry(box.read("codex"))!.args).toEqual([SOURCE_ENTRY, "mcp"]);
  }, 120_000);

  test("running it again changes nothing and says so", async () => {
    const before = ALL.map((id) => box.read(id));
    const run = await cli(box, ["install", ...ALL]);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/already installed in /g)?.length).toBe(9);
    expect(ALL.map((id) => box.read(id))).toEqual(before);
    expect(ALL.flatMap((id) => backups(box.file(id)))).toEqual([]);
  }, 120_000);

  test("doctor lists every client and sees this install in each", async () => {
    const run = await runCli(["doctor", "--json"], box.project, box.home, { PATH: box.bin });
    const clients = (
      JSON.parse(run.stdout) as { clients: { id: string; entries: { scope: string; state: string }[] }[] }
    ).clients;
    expect(clients.map((c) => [c.id, c.entries.map((e) => `${e.scope}:${e.state}`).join(",")])).toEqual(
      ALL.map((id) => [id, "user:current"]),
    );
    const text = await runCli(["doctor"], box.project, box.home, { PATH: box.bin });
    expect(text.stdout).toMatch(
      /IDE clients .*\n\s+CLIENT\s+FOUND\s+FILE\s+ENTRY\n\s+Claude Code\s+yes\s+~\/\.claude\.json\s+installed: this install/,
    );
  }, 60_000);

  test("uninstall removes every entry (and nothing else), keeping a backup", async () => {
    const run = await cli(box, ["uninstall", ...ALL]);
    expect(run.code).toBe(0);
    for (const id of ALL) {
      expect(CLIENTS[id].entry(box.read(id))).toBeUndefined();
      expect(backups(box.file(id)).length).toBe(1);
    }
    expect(box.read("opencode")).toBe('{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {}\n}\n');
    expect(box.read("codex")).toBe("");
  }, 60_000);
});

describe("files that already hold other servers and the user's comments", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
    for (const id of ALL) box.write(id, CLIENTS[id].fixture);
  });
  afterAll(() => box.cleanup());

  test("a dry run shows a diff for each and changes no byte, leaves no backup", async () => {
    const mtimes = ALL.map((id) => statSync(box.file(id)).mtimeMs);
    const run = await cli(box, ["install", ...ALL, "--dry-run"]);
    expect(run.code).toBe(0);
    for (const id of ALL) {
      expect(run.stdout).toContain(`--- ~/${CLIENTS[id].user}\n+++ ~/${CLIENTS[id].user}\n@@ `);
      expect(box.read(id)).toBe(CLIENTS[id].fixture);
      expect(backups(box.file(id))).toEqual([]);
    }
    expect(ALL.map((id) => statSync(box.file(id)).mtimeMs)).toEqual(mtimes);
  });

  test("a verification that fails rolls every file back byte for byte and leaves no backup", async () => {
    const run = await cli(box, ["install", ...ALL, "--verify-timeout", "0.001"]);
    expect(run.code).toBe(1);
    for (const id of ALL) {
      expect(box.read(id)).toBe(CLIENTS[id].fixture);
      expect(backups(box.file(id))).toEqual([]);
    }
    expect(
      run.stderr.match(
        /error: verification failed: no answer to initialize within 0\.001 s\n {2}~\/\S+ was restored as it was \(from its backup\)/g,
      )?.length,
    ).toBe(9);
    expect(run.stdout).toContain("Nothing installed; 9 clients not (see above).");
  });

  test("install adds only our entry: the entry starts, backups hold the old bytes, uninstall gives back the exact file", async () => {
    const run = await cli(box, ["install", ...ALL]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    for (const id of ALL) {
      const text = box.read(id);
      await startEntry(box, id, text, SOURCE);
      // The other server and the comments are still there.
      for (const line of CLIENTS[id].fixture
        .split("\n")
        .filter((l) => /\/\/|#|"(github|filesystem|linear|sentry|memory|postgres|git|everything)"|docs/.test(l)))
        expect(text).toContain(line.trim());
      const [backup] = backups(box.file(id));
      expect(readFileSync(join(dirname(box.file(id)), backup!), "utf8")).toBe(CLIENTS[id].fixture);
    }
    const removed = await cli(box, ["uninstall", ...ALL]);
    expect(removed.code).toBe(0);
    for (const id of ALL) expect({ id, text: box.read(id) }).toEqual({ id, text: CLIENTS[id].fixture });
  }, 120_000);
});

describe("an existing skill-central entry that differs", () => {
  let box: Sandbox;
  const OLD = "/old/bin/skill-central";
  const withOldEntry = (id: Id): string => {
    switch (id) {
      case "codex":
        return `${CLIENTS.codex.fixture}\n[mcp_servers.skill-central]\ncommand = "${OLD}"\nargs = ["mcp"]\n`;
      case "opencode":
        return CLIENTS.opencode.fixture.replace(
          '"mcp": {\n',
          `"mcp": {\n    "skill-central": { "type": "local", "command": ["${OLD}", "mcp"], "enabled": true },\n`,
        );
      case "zed":
        return CLIENTS.zed.fixture.replace(
          '"context_servers": {\n',
          `"context_servers": {\n    "skill-central": { "source": "custom", "command": "${OLD}", "args": ["mcp"] },\n`,
        );
      case "vscode":
        return CLIENTS.vscode.fixture.replace(
          '"servers": {\n',
          `"servers": {\n\t\t"skill-central": { "type": "stdio", "command": "${OLD}", "args": ["mcp"] },\n`,
        );
      default:
        return CLIENTS[id].fixture.replace(
          '"mcpServers": {\n',
          `"mcpServers": {\n    "skill-central": { "command": "${OLD}", "args": ["mcp"] },\n`,
        );
    }
  };
  beforeAll(() => {
    box = sandbox();
    for (const id of ALL) box.write(id, withOldEntry(id));
  });
  afterAll(() => box.cleanup());

  test("without --force: untouched, exit 1, and the diff shows what --force would change", async () => {
    const run = await cli(box, ["install", ...ALL]);
    expect(run.code).toBe(1);
    for (const id of ALL) {
      expect(CLIENTS[id].entry(box.read(id))?.command).toBe(OLD);
      expect(box.read(id)).toBe(withOldEntry(id));
      expect(run.stdout).toContain(
        `differs: an entry named skill-central already exists in ~/${CLIENTS[id].user} and differs; run with --force to replace it`,
      );
    }
    expect(run.stdout.match(new RegExp(`^-.*${OLD.replace(/\//g, "\\/")}`, "gm"))?.length).toBe(9);
    expect(run.stdout.match(new RegExp(`^\\+.*${process.execPath.replace(/[/.]/g, "\\$&")}`, "gm"))?.length).toBe(9);
  });

  test("with --force: replaced and verified; every line outside the entry is kept", async () => {
    const run = await cli(box, ["install", ...ALL, "--force"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    for (const id of ALL) {
      const text = box.read(id);
      await startEntry(box, id, text, SOURCE);
      for (const line of withOldEntry(id)
        .split("\n")
        .filter((l) => !l.includes(OLD) && !/^args = \["mcp"\]$/.test(l)))
        expect({ id, line, kept: text.includes(line) }).toEqual({ id, line, kept: true });
    }
  }, 120_000);
});

describe("broken config files", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
    for (const id of ALL) box.write(id, CLIENTS[id].broken[0]);
  });
  afterAll(() => box.cleanup());

  test("each is left untouched, with the line and column of its error", async () => {
    const run = await cli(box, ["install", ...ALL]);
    expect(run.code).toBe(1);
    for (const id of ALL) {
      expect(box.read(id)).toBe(CLIENTS[id].broken[0]);
      expect(backups(box.file(id))).toEqual([]);
      expect(run.stderr).toContain(
        `error: ~/${CLIENTS[id].user}:${CLIENTS[id].broken[1]}; the file is left untouched (fix it, then run this again)\n`,
      );
    }
    const removing = await cli(box, ["uninstall", ...ALL]);
    expect(removing.code).toBe(1);
    for (const id of ALL) expect(box.read(id)).toBe(CLIENTS[id].broken[0]);
  });
});

describe("project scope", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  test("the seven clients with a project file get it; the entry starts from there", async () => {
    const run = await cli(box, ["install", ...WITH_PROJECT_FILE, "--scope", "project"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    for (const id of WITH_PROJECT_FILE) await startEntry(box, id, box.read(id, "project"), SOURCE);
    expect(homeEntries(box)).toEqual([]);
  }, 120_000);

  test("Claude Desktop and Windsurf have none: an error naming their user file", async () => {
    const run = await cli(box, ["install", "windsurf", "claude-desktop", "--scope", "project"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "Windsurf: error: Windsurf has no project config file (only ~/.codeium/windsurf/mcp_config.json); use --scope user",
    );
    expect(run.stderr).toContain(
      "Claude Desktop: error: Claude Desktop has no project config file (only ~/.config/Claude/claude_desktop_config.json); use --scope user",
    );
  });
});

describe("with no client named", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
    mkdirSync(join(box.home, ".cursor"));
    box.write("codex", CLIENTS.codex.fixture);
  });
  afterAll(() => box.cleanup());

  test("with no terminal to ask and no --yes, it shows what it would do, writes nothing and exits 2 saying to add --yes or --dry-run", async () => {
    const run = await cli(box, ["install"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toStartWith("Found Cursor (~/.cursor exists), Codex (~/.codex exists)\n");
    expect(run.stdout).toContain("Cursor: create ~/.cursor/mcp.json");
    expect(run.stderr).toBe(
      "\nskill-central install: nothing was written: stdin is not a terminal, so there was no one to ask. Run again with --yes to install, or with --dry-run to only show the changes (or name the clients).\n",
    );
    expect(existsSync(box.file("cursor"))).toBe(false);
    expect(box.read("codex")).toBe(CLIENTS.codex.fixture);
    // --json asks no one either: the plan as data, the same exit and message.
    const data = await cli(box, ["install", "--json"]);
    expect(data.code).toBe(2);
    expect((JSON.parse(data.stdout) as { dryRun: boolean }).dryRun).toBe(true);
    expect(data.stderr).toContain(
      "skill-central install: nothing was written: --json does not ask. Run again with --yes",
    );
    // --dry-run asked for exactly that: exit 0.
    const dry = await cli(box, ["install", "--dry-run"]);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: "" });
    expect(dry.stdout).toEndWith("\nDry run: nothing was written.\n");
    expect(existsSync(box.file("cursor"))).toBe(false);
  });

  test("--yes installs in every detected client", async () => {
    const run = await cli(box, ["install", "--yes"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toContain("Installed in 2 clients.");
    expect(CLIENTS.cursor.entry(box.read("cursor"))?.command).toBe(process.execPath);
  }, 60_000);

  test("uninstall finds the clients that have the entry", async () => {
    const shown = await cli(box, ["uninstall"]);
    expect(shown.stdout).toMatch(
      /^Cursor: remove the entry from ~\/\.cursor\/mcp\.json\n[\s\S]*Codex: remove the entry from ~\/\.codex\/config\.toml\n/,
    );
    // No one to ask: nothing removed, exit 2, and what to add.
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain(
      "skill-central uninstall: nothing was written: stdin is not a terminal, so there was no one to ask. Run again with --yes to uninstall, or with --dry-run",
    );
    expect(CLIENTS.cursor.entry(box.read("cursor"))).toBeDefined();
    const run = await cli(box, ["uninstall", "--yes"]);
    expect(run.code).toBe(0);
    expect(box.read("codex")).toBe(CLIENTS.codex.fixture);
    expect((await cli(box, ["uninstall"])).stdout).toBe("No client has a skill-central entry in its user config.\n");
  }, 60_000);

  test("nothing detected: an error that says how to name a client", async () => {
    const empty = sandbox();
    try {
      const run = await cli(empty, ["install"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toStartWith(
        "skill-central install: no MCP client found on this machine (looked for Claude Code, Claude Desktop, Cursor",
      );
    } finally {
      empty.cleanup();
    }
  });
});

describe("usage errors", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  test("unknown clients, scopes, URLs and token variables are refused before anything is read", async () => {
    const [client, scope, url, orphan, unset, timeout] = await Promise.all([
      cli(box, ["install", "cursr"]),
      cli(box, ["install", "cursor", "--scope", "global"]),
      cli(box, ["install", "cursor", "--http", "ftp://x"]),
      cli(box, ["install", "cursor", "--token-env", "T"]),
      cli(box, ["install", "cursor", "--http", "http://127.0.0.1:1/mcp", "--token-env", "SKILLS_TOKEN_NOT_SET"]),
      cli(box, ["install", "cursor", "--verify-timeout", "soon"]),
    ]);
    expect(client).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skill-central install: error: unknown client "cursr" (did you mean "cursor"?)\n',
    });
    expect(scope.stderr).toBe('skill-central install: error: --scope must be user or project, not "global"\n');
    expect(url.stderr).toBe('skill-central install: error: --http needs an http:// or https:// URL, not "ftp://x"\n');
    expect(orphan.stderr).toBe("skill-central install: error: --token-env goes with --http <url>\n");
    expect(unset.stderr).toBe(
      "skill-central install: error: --token-env SKILLS_TOKEN_NOT_SET: the variable is not set here; set it (the entry is checked with it), then run this again\n",
    );
    expect(timeout.stderr).toBe(
      'skill-central install: error: --verify-timeout must be a positive number of seconds, not "soon"\n',
    );
    expect(homeEntries(box)).toEqual([]);
  });
});

describe("--json", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  test("plans and results as data, dry run or not", async () => {
    type Report = {
      dryRun: boolean;
      scope: string;
      entry: { kind: string; command: string; args: string[] };
      clients: {
        client: string;
        file: string;
        action: string;
        diff: string;
        result?: { ok: boolean; message: string };
      }[];
    };
    const dry = JSON.parse((await cli(box, ["install", "gemini", "--dry-run", "--json"])).stdout) as Report;
    expect(dry).toMatchObject({
      dryRun: true,
      scope: "user",
      entry: { kind: "source", command: process.execPath, args: [SOURCE_ENTRY, "mcp"] },
    });
    expect(dry.clients).toEqual([
      {
        client: "gemini",
        scope: "user",
        file: box.file("gemini"),
        action: "create",
        diff: expect.stringMatching(/^--- \/dev\/null\n/),
      },
    ] as never);
    const run = await cli(box, ["install", "gemini", "--json"]);
    const report = JSON.parse(run.stdout) as Report;
    expect(run.code).toBe(0);
    expect(report.clients[0]).toMatchObject({
      client: "gemini",
      action: "create",
      result: { ok: true, message: expect.stringContaining("answered initialize") },
    });
  }, 60_000);
});

describe("--http entries (checked against a fixture Streamable HTTP server: the real HTTP mode is built separately)", () => {
  let box: Sandbox;
  let server: ReturnType<typeof Bun.serve>;
  const TOKEN = "tok-e2e-secret";
  beforeAll(() => {
    box = sandbox();
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        if (request.headers.get("authorization") !== `Bearer ${TOKEN}`)
          return new Response("unauthorized", { status: 401 });
        const message = (await request.json()) as { id?: number; method: string; params?: { protocolVersion: string } };
        if (message.method === "initialize")
          return Response.json({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: message.params!.protocolVersion,
              capabilities: {},
              serverInfo: { name: "skill-central", version: "http" },
            },
          });
        if (message.id === undefined) return new Response(null, { status: 202 });
        return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [{ name: "x" }] } });
      },
    });
  });
  afterAll(() => {
    server.stop(true);
    box.cleanup();
  });

  const HTTP_CLIENTS: Id[] = ["claude-code", "cursor", "windsurf", "vscode", "codex", "gemini", "opencode"];

  test("each client gets the URL in its own key and the token by reference; the secret is in no file and no output", async () => {
    const url = `http://127.0.0.1:${server.port}/mcp`;
    const run = await cli(box, ["install", ...HTTP_CLIENTS, "--http", url, "--token-env", "SKILLS_TOKEN"], {
      SKILLS_TOKEN: TOKEN,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout.match(/skill-central http answered initialize and listed 1 tool\b/g)?.length).toBe(
      HTTP_CLIENTS.length,
    );
    for (const id of HTTP_CLIENTS) expect(box.read(id)).not.toContain(TOKEN);
    expect(run.stdout).not.toContain(TOKEN);
    expect(jsonc(box.read("windsurf")).mcpServers!["skill-central"]).toEqual({
      serverUrl: url,
      headers: { Authorization: "Bearer ${env:SKILLS_TOKEN}" },
    });
    expect(
      (Bun.TOML.parse(box.read("codex")) as { mcp_servers: Record<string, unknown> }).mcp_servers["skill-central"],
    ).toEqual({ url, bearer_token_env_var: "SKILLS_TOKEN" });
  }, 60_000);

  test("a wrong token fails verification, names the variable, and rolls back", async () => {
    const fresh = sandbox();
    try {
      const run = await cli(
        fresh,
        ["install", "gemini", "--http", `http://127.0.0.1:${server.port}/mcp`, "--token-env", "SKILLS_TOKEN"],
        { SKILLS_TOKEN: "wrong" },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        "verification failed: initialize: the server refused the request (HTTP 401): check the token in SKILLS_TOKEN",
      );
      expect(existsSync(fresh.file("gemini"))).toBe(false);
    } finally {
      fresh.cleanup();
    }
  });

  test("Zed with a token and Claude Desktop with any URL are refused, with the reason", async () => {
    const run = await cli(
      box,
      [
        "install",
        "zed",
        "claude-desktop",
        "--http",
        `http://127.0.0.1:${server.port}/mcp`,
        "--token-env",
        "SKILLS_TOKEN",
      ],
      { SKILLS_TOKEN: TOKEN },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Zed: error: Zed does not read environment variables in headers");
    expect(run.stderr).toContain("Claude Desktop: error: Claude Desktop takes remote servers as connectors");
  });
});

/** The real Claude Code CLI (npm @anthropic-ai/claude-code, installed by .ci/run); works offline for `claude mcp`. */
const claude = Bun.which("claude");
if (!claude && process.env.CI)
  throw new Error("CI must install the claude CLI (.ci/run does: npm install -g @anthropic-ai/claude-code)");

describe.if(claude !== null)("Claude Code through the real `claude mcp` commands", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
    symlinkSync(claude!, join(box.bin, "claude"));
  });
  afterAll(() => box.cleanup());

  test("install runs claude mcp add; the entry Claude wrote is verified and starts", async () => {
    const run = await cli(box, ["install", "claude-code"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toContain(
      `Claude Code: create ~/.claude.json with \`claude mcp add --scope user skill-central -- ${process.execPath} ${SOURCE_ENTRY} mcp\``,
    );
    expect(run.stdout).toContain("Claude Code: ok: added with `claude mcp add` to ~/.claude.json; skill-central");
    const written = jsonc(box.read("claude-code")).mcpServers!["skill-central"];
    expect(written).toEqual({ type: "stdio", command: process.execPath, args: [SOURCE_ENTRY, "mcp"], env: {} });
    await startEntry(box, "claude-code", box.read("claude-code"), SOURCE);
    expect((await cli(box, ["install", "claude-code"])).stdout).toContain(
      "Claude Code: already installed in ~/.claude.json",
    );
  }, 60_000);

  test("--force goes through claude mcp remove then add; uninstall through claude mcp remove", async () => {
    const path = box.file("claude-code");
    const data = JSON.parse(readFileSync(path, "utf8")) as { mcpServers: Record<string, { command: string }> };
    data.mcpServers["skill-central"]!.command = "/old/skill-central";
    writeFileSync(path, JSON.stringify(data, null, 2));
    const forced = await cli(box, ["install", "claude-code", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(
      "with `claude mcp remove --scope user skill-central` then `claude mcp add --scope user skill-central -- ",
    );
    expect(CLIENTS["claude-code"].entry(box.read("claude-code"))?.command).toBe(process.execPath);
    const removed = await cli(box, ["uninstall", "claude-code"]);
    expect(removed.code).toBe(0);
    expect(CLIENTS["claude-code"].entry(box.read("claude-code"))).toBeUndefined();
  }, 60_000);

  test("project scope: claude mcp add --scope project writes .mcp.json", async () => {
    const run = await cli(box, ["install", "claude-code", "--scope", "project"]);
    expect(run.code).toBe(0);
    await startEntry(box, "claude-code", box.read("claude-code", "project"), SOURCE);
  }, 60_000);
});

describe("the compiled binary registers itself", () => {
  let box: Sandbox;
  let binary: string;
  beforeAll(async () => {
    box = sandbox();
    // Named as users name it (test builds are called host-<pid>), so doctor recognises it as skill-central.
    binary = join(box.root, "skill-central");
    linkSync(await buildForTests(), binary);
  }, 120_000);
  afterAll(() => box?.cleanup());

  test("its own absolute path, verified, started as written; doctor sees this install", async () => {
    const proc = Bun.spawn([binary, "install", "cursor", "codex", "claude-desktop"], {
      cwd: box.project,
      env: { HOME: box.home, PATH: box.bin, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`Entry: ${binary} mcp (this binary)`);
    for (const id of ["cursor", "codex", "claude-desktop"] as const)
      await startEntry(box, id, box.read(id), { command: binary, argsStart: ["mcp"] });
    const doctor = Bun.spawn([binary, "doctor", "--json"], {
      cwd: box.project,
      env: { HOME: box.home, PATH: box.bin },
      stdout: "pipe",
    });
    const clients = (
      JSON.parse(await new Response(doctor.stdout).text()) as {
        clients: { id: string; entries: { state: string }[] }[];
      }
    ).clients;
    expect(clients.filter((c) => c.entries.some((e) => e.state === "current")).map((c) => c.id)).toEqual([
      "claude-desktop",
      "cursor",
      "codex",
    ]);
    // The same entries seen from the source checkout point at another install.
    const fromSource = await runCli(["doctor", "--json"], box.project, box.home, { PATH: box.bin });
    const cursor = (
      JSON.parse(fromSource.stdout) as { clients: { id: string; entries: { state: string; detail: string }[] }[] }
    ).clients.find((c) => c.id === "cursor")!;
    expect(cursor.entries[0]).toMatchObject({
      state: "other",
      detail: expect.stringMatching(/^another install: .* \(version \d+\.\d+\.\d+\)$/),
    });
  }, 120_000);
});

test("the README's IDE section starts with skill-central install and links the page that holds every client and the hand-written configs", async () => {
  const readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
  const at = readme.indexOf("\n## IDE setup\n");
  expect(at).toBeGreaterThan(0);
  const rest = readme.slice(at + 1);
  const ideSetup = rest.slice(0, rest.indexOf("\n## ") + 1);
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(ideSetup)?.[1] ?? "";
  expect(firstBlock).toStartWith("skill-central install");
  expect(ideSetup).toContain("[docs/install-ides.md](docs/install-ides.md)");
  expect(ideSetup).toContain("(docs/install-ides.md#writing-the-entry-by-hand)");
  // The snippets live on the page, once: the README shows none of them.
  for (const snippet of ["mcpServers", '"servers"', "[mcp_servers.", "claude mcp add"])
    expect({ snippet, inReadme: readme.includes(snippet) }).toEqual({ snippet, inReadme: false });
  const page = await Bun.file(join(REPO_ROOT, "docs", "install-ides.md")).text();
  for (const id of ALL) expect(page).toContain(`\`${id}\``);
});

test("docs/install-ides.md's hand-written configs are what install writes: the file it names, the same keys and the same options after mcp", async () => {
  const { page, launches, problems } = await pageLaunches();
  expect(problems).toEqual([]);
  const ides: [string, Id, Launch["from"][]][] = [
    ["Claude Code", "claude-code", ["claude"]],
    ["Cursor", "cursor", ["json"]],
    ["Windsurf", "windsurf", ["json"]],
    ["VS Code", "vscode", ["vscode"]],
    ["Codex", "codex", ["toml"]],
  ];
  const box = sandbox();
  try {
    for (const [ide, id, forms] of ides) {
      const run = await cli(box, ["install", id, "--dry-run", "--json"]);
      expect({ id, code: run.code }).toEqual({ id, code: 0 });
      const [plan] = (JSON.parse(run.stdout) as { clients: { diff: string }[] }).clients;
      // The file install would create: every added line of its diff from /dev/null.
      const written = plan!.diff
        .split("\n")
        .filter((line) => line.startsWith("+") && !line.startsWith("+++"))
        .map((line) => line.slice(1))
        .join("\n");
      const entry = CLIENTS[id].entry(written)!;
      expect(entry.args.slice(0, 2)).toEqual([SOURCE_ENTRY, "mcp"]);
      const options = entry.args.slice(2).map((arg) => (arg === box.project ? "/path/to/project" : arg));
      const section = ideSection(page, ide);
      expect({ ide, namesFile: section.includes(`~/${CLIENTS[id].user}`) }).toEqual({ ide, namesFile: true });
      const shown = launches.filter((l) => ideOf(page, l) === ide);
      expect({ ide, snippets: shown.length > 0 }).toEqual({ ide, snippets: true });
      for (const launch of shown) {
        const container = launch.from === "toml" ? "mcp_servers" : launch.from === "vscode" ? "servers" : "mcpServers";
        const parsed = (id === "codex" ? Bun.TOML.parse(written) : Bun.JSONC.parse(written)) as Record<
          string,
          Record<string, unknown>
        >;
        expect({ where: launch.where, form: forms.includes(launch.from), key: container in parsed }).toEqual({
          where: launch.where,
          form: true,
          key: true,
        });
        const after = launch.args.slice(launch.args.indexOf("mcp") + 1);
        expect({ where: launch.where, options: after }).toEqual({ where: launch.where, options });
      }
    }
  } finally {
    box.cleanup();
  }
});

/**
 * Odd files, from source and from the compiled binary: a config that is not UTF-8, a BOM,
 * rollbacks after a check that really fails, and dotfile-manager links (dangling or not). The
 * failing checks are `--http` checks against a local server that refuses them (HTTP 401), so the
 * failure is certain and not a race with a timeout.
 */
interface Runner {
  name: string;
  run(box: Sandbox, args: string[]): Promise<CliRun>;
  /** The command the entries get. */
  expected(): { command: string; argsStart: string[] };
}

const fromSource: Runner = { name: "source", run: (box, args) => cli(box, args), expected: () => SOURCE };

function fromBinary(): Runner & { build(): Promise<void> } {
  let binary = "";
  return {
    name: "binary",
    async build() {
      binary = await buildForTests();
    },
    async run(box, args) {
      const proc = Bun.spawn([binary, ...args], {
        cwd: box.project,
        env: { HOME: box.home, PATH: box.bin, NO_COLOR: "1" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      return { code, stdout, stderr };
    },
    expected: () => ({ command: binary, argsStart: ["mcp"] }),
  };
}

const bytesOf = (path: string) => new Uint8Array(readFileSync(path));
const sameBytes = (path: string, bytes: Uint8Array) => Buffer.from(readFileSync(path)).equals(bytes);
const BOM = "\uFEFF";

for (const runner of [fromSource, fromBinary()]) {
  describe(`odd config files (${runner.name})`, () => {
    let box: Sandbox;
    let refusing: ReturnType<typeof Bun.serve>;
    /** What the "IDE" writes into the file while the check runs. */
    const IDE_TEXT = '{\n  "mcpServers": {},\n  "rewrittenBy": "the IDE"\n}\n';
    beforeAll(async () => {
      if ("build" in runner) await (runner as ReturnType<typeof fromBinary>).build();
      box = sandbox();
      refusing = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch(request) {
          // `/rewrite?file=…`: another program writes the config while the check is running.
          const file = new URL(request.url).searchParams.get("file");
          if (file) writeFileSync(file, IDE_TEXT);
          return new Response("unauthorized", { status: 401 });
        },
      });
    }, 120_000);
    afterAll(() => {
      refusing?.stop(true);
      box?.cleanup();
    });

    test("a config that is not valid UTF-8 is refused, naming the file and the first bad byte; its bytes are unchanged, no backup", async () => {
      // Latin-1 "café" in another server's args, as an old editor saved it.
      const latin1 = Uint8Array.from(
        '{\n  "mcpServers": {\n    "old": { "command": "x", "args": ["caf\xe9"] }\n  }\n}\n',
        (c) => c.charCodeAt(0),
      );
      const path = box.file("cursor");
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, latin1);
      const expected =
        "~/.cursor/mcp.json:3:43: not valid UTF-8 (byte 0xE9 at byte offset 62); skill-central edits only UTF-8 files, so the file is left untouched (save it as UTF-8, then run this again)";
      for (const command of ["install", "uninstall"]) {
        const run = await runner.run(box, [command, "cursor"]);
        expect({ command, code: run.code, stderr: run.stderr.trim() }).toEqual({
          command,
          code: 1,
          stderr: `Cursor: error: ${expected}`,
        });
        expect(sameBytes(path, latin1)).toBe(true);
        expect(backups(path)).toEqual([]);
      }
      const doctor = JSON.parse((await runner.run(box, ["doctor", "--json"])).stdout) as {
        clients: { id: string; entries: { state: string; detail?: string }[] }[];
      };
      expect(doctor.clients.find((c) => c.id === "cursor")!.entries[0]).toMatchObject({
        state: "broken",
        detail: expected,
      });
      rmSync(path);
    }, 60_000);

    test("files saved with a byte order mark (VS Code, Cursor, Codex) are installed with the BOM kept; uninstall gives back the exact bytes", async () => {
      const ids: Id[] = ["vscode", "cursor", "codex"];
      const originals = ids.map((id) => {
        const bytes = new TextEncoder().encode(
          BOM + CLIENTS[id].fixture.replace(/\n/g, id === "codex" ? "\n" : "\r\n"),
        );
        const path = box.file(id);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, bytes);
        return bytes;
      });
      const run = await runner.run(box, ["install", ...ids]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      for (const id of ids) {
        const text = box.read(id);
        expect({ id, bom: [...bytesOf(box.file(id)).slice(0, 3)], more: text.indexOf(BOM, 1) }).toEqual({
          id,
          bom: [0xef, 0xbb, 0xbf],
          more: -1,
        });
        await startEntry(box, id, text.slice(1), runner.expected());
      }
      const removed = await runner.run(box, ["uninstall", ...ids]);
      expect(removed.code).toBe(0);
      for (const [i, id] of ids.entries()) {
        expect({ id, same: sameBytes(box.file(id), originals[i]!) }).toEqual({ id, same: true });
      }
      for (const id of ids) rmSync(dirname(box.file(id)), { recursive: true });
    }, 120_000);

    test("a check that fails puts back the exact bytes (BOM, CRLF, non-ASCII, no final newline) and only then removes the backup", async () => {
      const original = new TextEncoder().encode(
        `${BOM}{\r\n  // Zoë's servers ✓\r\n  "mcpServers": { "docs": { "command": "docs-mcp", "args": ["𝄞"] } }\r\n}`,
      );
      const path = box.file("cursor");
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, original, { mode: 0o600 });
      const run = await runner.run(box, ["install", "cursor", "--http", `http://127.0.0.1:${refusing.port}/mcp`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        "Cursor: error: verification failed: initialize: the server refused the request (HTTP 401); it may need a token (--token-env)\n  ~/.cursor/mcp.json was restored as it was (from its backup)\n",
      );
      expect(sameBytes(path, original)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(backups(path)).toEqual([]);
      rmSync(dirname(path), { recursive: true });
    }, 60_000);

    test("when another program rewrites the file during the check, the rollback leaves its content and keeps the backup", async () => {
      const original = '{\n  "mcpServers": {}\n}\n';
      const path = box.write("cursor", original);
      const run = await runner.run(box, [
        "install",
        "cursor",
        "--http",
        `http://127.0.0.1:${refusing.port}/rewrite?file=${encodeURIComponent(path)}`,
      ]);
      expect(run.code).toBe(1);
      const [backup] = backups(path);
      expect(run.stderr).toBe(
        `Cursor: error: verification failed: initialize: the server refused the request (HTTP 401); it may need a token (--token-env)\n  ~/.cursor/mcp.json was changed by another program after skill-central wrote it, so it was not put back; the original is kept in ~/.cursor/${backup}\n`,
      );
      expect(readFileSync(path, "utf8")).toBe(IDE_TEXT);
      expect(readFileSync(join(dirname(path), backup!), "utf8")).toBe(original);
      rmSync(dirname(path), { recursive: true });
    }, 60_000);

    test("a dangling link (a dotfiles target not created yet): the target is created and the link stays; a failed check removes it again", async () => {
      const link = box.file("cursor");
      const target = join(box.root, "dotfiles", "cursor", "mcp.json");
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync("../../dotfiles/cursor/mcp.json", link);

      const failed = await runner.run(box, ["install", "cursor", "--http", `http://127.0.0.1:${refusing.port}/mcp`]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain("~/.cursor/mcp.json was restored as it was (removed: it did not exist before)");
      expect([lstatSync(link).isSymbolicLink(), existsSync(join(box.root, "dotfiles"))]).toEqual([true, false]);

      const run = await runner.run(box, ["install", "cursor"]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(run.stdout).toContain("Cursor: ok: created ~/.cursor/mcp.json;");
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      await startEntry(box, "cursor", readFileSync(target, "utf8"), runner.expected());
      expect(readdirSync(dirname(target))).toEqual(["mcp.json"]);
    }, 120_000);

    test("a link to an existing file stays a link through install and uninstall; the backups go beside the link, not into the dotfiles", async () => {
      // Continues from the test above: ~/.cursor/mcp.json → dotfiles/cursor/mcp.json, which now holds the entry.
      const link = box.file("cursor");
      const target = join(box.root, "dotfiles", "cursor", "mcp.json");
      const removed = await runner.run(box, ["uninstall", "cursor"]);
      expect(removed.code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(CLIENTS.cursor.entry(readFileSync(target, "utf8"))).toBeUndefined();
      const run = await runner.run(box, ["install", "cursor"]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(CLIENTS.cursor.entry(readFileSync(target, "utf8"))?.command).toBe(runner.expected().command);
      const kept = backups(link);
      expect(kept.length).toBe(2);
      for (const name of kept) expect(lstatSync(join(dirname(link), name)).isFile()).toBe(true);
      expect(kept).toContain(/\n {2}backup: ~\/\.cursor\/(\S+)\n/.exec(run.stdout)?.[1] ?? "no backup line");
      expect(readdirSync(dirname(target))).toEqual(["mcp.json"]);
    }, 120_000);
  });
}

describe("the entry names the command as found on PATH, not the file behind its links", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  /** A hard link when the file system allows one (no 100 MB copy), else a copy. */
  const place = (from: string, to: string) => {
    mkdirSync(dirname(to), { recursive: true });
    try {
      linkSync(from, to);
    } catch {
      writeFileSync(to, readFileSync(from), { mode: 0o755 });
    }
  };

  test("source: Bun installed the npm way (bin/bun → lib/node_modules/bun/bin/bun.exe) is registered as bin/bun", async () => {
    const exe = join(box.root, "lib", "node_modules", "bun", "bin", "bun.exe");
    place(process.execPath, exe);
    symlinkSync("../lib/node_modules/bun/bin/bun.exe", join(box.bin, "bun"));
    const bun = join(box.bin, "bun");
    const proc = Bun.spawn([bun, SOURCE_ENTRY, "install", "cursor", "codex"], {
      cwd: box.project,
      env: { HOME: box.home, PATH: box.bin, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`Entry: ${bun} ${SOURCE_ENTRY} mcp (this checkout, with bun)`);
    for (const id of ["cursor", "codex"] as const)
      await startEntry(box, id, box.read(id), { command: bun, argsStart: [SOURCE_ENTRY, "mcp"] });
    expect(box.read("cursor")).not.toContain("bun.exe");
  }, 120_000);

  test("binary: one linked onto PATH is registered by the link's path", async () => {
    const real = join(box.root, "opt", "skill-central-1.0", "skill-central");
    place(await buildForTests(), real);
    const link = join(box.bin, "skill-central");
    symlinkSync(real, link);
    rmSync(box.file("cursor"));
    const proc = Bun.spawn(["skill-central", "install", "cursor"], {
      cwd: box.project,
      env: { HOME: box.home, PATH: box.bin, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`Entry: ${link} mcp (this binary)`);
    await startEntry(box, "cursor", box.read("cursor"), { command: link, argsStart: ["mcp"] });
  }, 120_000);
});
