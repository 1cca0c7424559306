import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { fencedBlocks, isRemote } from "../helpers/markdown.ts";
import { connect, REPO_ROOT, SOURCE_ENTRY } from "../helpers/server.ts";

/**
 * The README's IDE configuration is what users paste: every `mcpServers` JSON snippet and every
 * `claude mcp add` line must start our server. Each is checked against the forms we support, and
 * the binary and source forms are then started for real, placeholders filled in.
 */

type LaunchKind = "binary" | "bunx" | "source";

interface Launch {
  kind: LaunchKind;
  /** A JSON snippet or a `claude mcp add` line. */
  from: "json" | "claude";
  command: string;
  args: string[];
  /** Where in the README, for failure messages. */
  where: string;
}

/** A command line as the README shows it, before it is classified. */
type Shown = Omit<Launch, "kind">;

/** Paths in the README are placeholders under these prefixes, never someone's real folder. */
const PLACEHOLDER = /^(\/path\/to\/|C:\\path\\to\\)/;
const BINARY_FILE = /^skill-central(\.exe)?$/;
const SERVER_NAME = "skill-central";

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** The options `skill-central mcp --help` lists, with whether each takes a value (`--cwd <dir>`). */
async function cliOptions(): Promise<Map<string, boolean>> {
  const proc = Bun.spawn([process.execPath, SOURCE_ENTRY, "mcp", "--help"], { stdout: "pipe", stderr: "pipe" });
  const help = await new Response(proc.stdout).text();
  const options = new Map<string, boolean>();
  for (const match of help.matchAll(/^\s+(--[a-z][a-z-]*)(\s+<[^>]+>)?\s{2,}/gm)) options.set(match[1]!, match[2] !== undefined);
  return options;
}

/**
 * Why `command args` would not start our stdio server, or null when it would. Accepted:
 * `/path/to/skill-central [mcp]`, `bunx skill-central [mcp]`, `bun /path/to/…/src/cli.ts [mcp]`,
 * each followed only by options `mcp --help` lists (with their values).
 */
function launchProblem(command: string, args: string[], options: Map<string, boolean>): { kind: LaunchKind } | { problem: string } {
  let kind: LaunchKind;
  let rest: string[];
  if (command === "bunx") {
    if (args[0] !== "skill-central") return { problem: `bunx must run "skill-central", not ${JSON.stringify(args[0])}` };
    [kind, rest] = ["bunx", args.slice(1)];
  } else if (command === "bun") {
    const entry = args[0] ?? "";
    if (!PLACEHOLDER.test(entry) || !/[\\/]src[\\/]cli\.ts$/.test(entry)) return { problem: `bun must run /path/to/skill-central/src/cli.ts, not ${JSON.stringify(entry)}` };
    [kind, rest] = ["source", args.slice(1)];
  } else if (BINARY_FILE.test(baseName(command)) && (command === baseName(command) || PLACEHOLDER.test(command))) {
    [kind, rest] = ["binary", args];
  } else {
    return { problem: `unknown command ${JSON.stringify(command)}` };
  }
  if (rest[0] === "mcp") rest = rest.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const takesValue = options.get(arg);
    if (takesValue === undefined) return { problem: `${JSON.stringify(arg)} is not an option of skill-central mcp (see mcp --help)` };
    if (arg === "--help" || arg === "--version") return { problem: `${arg} prints and exits instead of serving` };
    if (takesValue) {
      if (rest[i + 1] === undefined) return { problem: `${arg} needs a value` };
      i++;
    }
  }
  return { kind };
}

/** Every `mcpServers` JSON snippet: strict JSON, only our server, named as the IDE will show it. */
function jsonLaunches(markdown: string, problems: string[]): Shown[] {
  const launches: Shown[] = [];
  for (const block of fencedBlocks(markdown).filter((b) => b.body.includes("mcpServers"))) {
    const where = `README.md:${block.line} (${block.lang || "no language"} block)`;
    if (block.lang !== "json") problems.push(`${where}: an mcpServers snippet must be a json block`);
    let doc: unknown;
    try {
      doc = JSON.parse(block.body);
    } catch (error) {
      problems.push(`${where}: not valid JSON (${String(error)})`);
      continue;
    }
    const servers = (doc as { mcpServers?: unknown }).mcpServers;
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
      problems.push(`${where}: mcpServers must be an object`);
      continue;
    }
    for (const [name, entry] of Object.entries(servers)) {
      // Entries with a URL are remote (HTTP) configs: readme-http-config.test.ts checks those.
      if (isRemote(entry)) continue;
      if (name !== SERVER_NAME) problems.push(`${where}: server "${name}" should be named "${SERVER_NAME}"`);
      const { command, args = [], env, type, ...unknown } = entry as Record<string, unknown>;
      if (Object.keys(unknown).length > 0) problems.push(`${where}: unknown keys ${Object.keys(unknown).join(", ")}`);
      if (type !== undefined && type !== "stdio") problems.push(`${where}: type must be "stdio"`);
      if (env !== undefined && (typeof env !== "object" || env === null)) problems.push(`${where}: env must be an object`);
      if (typeof command !== "string" || !Array.isArray(args) || !args.every((a) => typeof a === "string")) {
        problems.push(`${where}: needs a string command and an array of string args`);
        continue;
      }
      launches.push({ from: "json", command, args, where });
    }
  }
  return launches;
}

/** Every `claude mcp add [--scope <s>] skill-central -- <command> <args…>` line in shell blocks. */
function claudeLaunches(markdown: string, problems: string[]): Shown[] {
  const launches: Shown[] = [];
  for (const block of fencedBlocks(markdown).filter((b) => b.lang === "sh" || b.lang === "bash" || b.lang === "shell")) {
    block.body.split("\n").forEach((text, offset) => {
      const line = text.replace(/\s+#.*$/, "").trim();
      if (!line.startsWith("claude mcp add")) return;
      // HTTP servers (--transport http) are checked by readme-http-config.test.ts.
      if (/\s--transport\s+(http|sse)\b/.test(line)) return;
      const where = `README.md:${block.line + 1 + offset}`;
      if (/["'`$\\]/.test(line)) return void problems.push(`${where}: keep the line free of quotes and escapes: ${line}`);
      const tokens = line.split(/\s+/);
      const dashes = tokens.indexOf("--");
      if (dashes < 0) return void problems.push(`${where}: put "--" between the server name and the command`);
      const head = tokens.slice(3, dashes);
      const name = head.pop();
      if (name !== SERVER_NAME) problems.push(`${where}: server name should be "${SERVER_NAME}", not ${JSON.stringify(name)}`);
      for (let i = 0; i < head.length; i += 2) {
        const [flag, value] = [head[i], head[i + 1]];
        if ((flag !== "--scope" && flag !== "-s") || !["local", "project", "user"].includes(value ?? "")) problems.push(`${where}: unexpected ${flag} ${value ?? ""}`);
      }
      const [command, ...args] = tokens.slice(dashes + 1);
      if (command === undefined) return void problems.push(`${where}: no command after "--"`);
      launches.push({ from: "claude", command, args, where });
    });
  }
  return launches;
}

describe("README IDE configuration", () => {
  let readme: string;
  let options: Map<string, boolean>;
  let launches: Launch[];
  let problems: string[];

  beforeAll(async () => {
    readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
    options = await cliOptions();
    problems = [];
    launches = [...jsonLaunches(readme, problems), ...claudeLaunches(readme, problems)].flatMap((launch): Launch[] => {
      const verdict = launchProblem(launch.command, launch.args, options);
      if ("problem" in verdict) {
        problems.push(`${launch.where}: ${verdict.problem}`);
        return [];
      }
      return [{ ...launch, kind: verdict.kind }];
    });
  });

  test("the checker accepts our three launch forms and rejects near misses", () => {
    expect(options.get("--cwd")).toBe(true);
    const ok = (command: string, args: string[]) => launchProblem(command, args, options);
    expect(ok("/path/to/skill-central", [])).toEqual({ kind: "binary" });
    expect(ok("C:\\path\\to\\skill-central.exe", ["mcp"])).toEqual({ kind: "binary" });
    expect(ok("bunx", ["skill-central", "mcp", "--cwd", "/path/to/project"])).toEqual({ kind: "bunx" });
    expect(ok("bun", ["/path/to/skill-central/src/cli.ts", "mcp"])).toEqual({ kind: "source" });
    for (const [command, args] of [
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
    expect(problems).toEqual([]);
  });

  test("the binary and bunx are both shown for Claude Code and as mcpServers JSON, with Cursor's and Windsurf's config files named", () => {
    const shown = (from: Launch["from"], kind: LaunchKind) => launches.some((l) => l.from === from && l.kind === kind);
    expect(shown("claude", "binary")).toBe(true);
    expect(shown("claude", "bunx")).toBe(true);
    expect(shown("json", "binary")).toBe(true);
    expect(shown("json", "bunx")).toBe(true);
    expect(readme).toContain(".cursor/mcp.json");
    expect(readme).toContain("~/.codeium/windsurf/mcp_config.json");
    expect(readme).toContain("skill-central --version");
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
      const fill = (arg: string) => (arg.startsWith("/path/to/project") ? fixture.cwd : arg.endsWith("src/cli.ts") ? SOURCE_ENTRY : arg);
      const distinct = new Map<string, Launch>();
      for (const l of launches) if (l.kind !== "bunx") distinct.set(JSON.stringify([l.command, l.args]), l);
      expect(distinct.size).toBeGreaterThan(0);
      for (const launch of distinct.values()) {
        const command = launch.kind === "binary" ? binary : process.execPath;
        const session = await connect({ name: launch.where, command, args: launch.args.map(fill) }, fixture.cwd, fixture.home);
        try {
          expect({ where: launch.where, server: session.client.getServerVersion()?.name }).toEqual({ where: launch.where, server: SERVER_NAME });
        } finally {
          await session.close();
        }
      }
    });
  });
});
