import { join } from "node:path";
import { fencedBlocks, isRemote } from "./markdown.ts";
import { REPO_ROOT, SOURCE_ENTRY } from "./server.ts";

/**
 * The hand-written IDE configuration in docs/install-ides.md (the README links there) is what
 * users paste: every `mcpServers` JSON snippet (Cursor, Windsurf), every VS Code `servers`
 * snippet, every Codex `[mcp_servers.…]` TOML snippet and every `claude mcp add` line. This reads
 * them and classifies each command line by how it starts our server; test/e2e/ide-snippets.test.ts
 * starts the binary and checkout forms, test/e2e/npm-registry.test.ts the npx and bunx forms
 * against a local registry, and test/e2e/install.test.ts checks each is what `install` writes.
 */

export type LaunchKind = "binary" | "npx" | "bunx" | "source";

export interface Launch {
  kind: LaunchKind;
  /** A JSON snippet (`mcpServers` or VS Code's `servers`), a Codex TOML snippet or a `claude mcp add` line. */
  from: "json" | "vscode" | "toml" | "claude";
  command: string;
  args: string[];
  /** Where in the page (`docs/install-ides.md:LINE`), for failure messages. */
  where: string;
}

/** A command line as the page shows it, before it is classified. */
type Shown = Omit<Launch, "kind">;

/** Paths in the page are placeholders under these prefixes, never someone's real folder. */
export const PLACEHOLDER = /^(\/path\/to\/|C:\\path\\to\\)/;
const BINARY_FILE = /^skill-central(\.exe)?$/;
export const SERVER_NAME = "skill-central";
/** The page that holds the hand-written configs, and the heading of their section. */
export const PAGE = "docs/install-ides.md";
const HAND_WRITTEN = "## Writing the entry by hand";
export const PACKAGE_NAME = "skill-central";

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** The options `skill-central mcp --help` lists, with whether each takes a value (`--cwd <dir>`). */
export async function cliOptions(): Promise<Map<string, boolean>> {
  const proc = Bun.spawn([process.execPath, SOURCE_ENTRY, "mcp", "--help"], { stdout: "pipe", stderr: "pipe" });
  const help = await new Response(proc.stdout).text();
  const options = new Map<string, boolean>();
  for (const match of help.matchAll(/^\s+(--[a-z][a-z-]*)(\s+<[^>]+>)?\s{2,}/gm))
    options.set(match[1]!, match[2] !== undefined);
  return options;
}

/**
 * Why `command args` would not start our stdio server, or null when it would. Accepted:
 * `/path/to/skill-central [mcp]`, `npx -y skill-central [mcp]`, `bunx skill-central [mcp]`,
 * `bun /path/to/…/src/cli.ts [mcp]`, each followed only by options `mcp --help` lists (with their
 * values). npx needs `-y`: an IDE has no terminal to answer npx's install prompt.
 */
export function launchProblem(
  command: string,
  args: string[],
  options: Map<string, boolean>,
): { kind: LaunchKind } | { problem: string } {
  let kind: LaunchKind;
  let rest: string[];
  if (command === "npx") {
    if (args[0] !== "-y")
      return { problem: `npx needs -y first (no prompt to install in an IDE), not ${JSON.stringify(args[0])}` };
    if (args[1] !== PACKAGE_NAME)
      return { problem: `npx -y must run "${PACKAGE_NAME}", not ${JSON.stringify(args[1])}` };
    [kind, rest] = ["npx", args.slice(2)];
  } else if (command === "bunx") {
    if (args[0] !== PACKAGE_NAME) return { problem: `bunx must run "${PACKAGE_NAME}", not ${JSON.stringify(args[0])}` };
    [kind, rest] = ["bunx", args.slice(1)];
  } else if (command === "bun") {
    const entry = args[0] ?? "";
    if (!PLACEHOLDER.test(entry) || !/[\\/]src[\\/]cli\.ts$/.test(entry))
      return { problem: `bun must run /path/to/skill-central/src/cli.ts, not ${JSON.stringify(entry)}` };
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
    if (takesValue === undefined)
      return { problem: `${JSON.stringify(arg)} is not an option of skill-central mcp (see mcp --help)` };
    if (arg === "--help" || arg === "--version") return { problem: `${arg} prints and exits instead of serving` };
    if (takesValue) {
      if (rest[i + 1] === undefined) return { problem: `${arg} needs a value` };
      i++;
    }
  }
  return { kind };
}

/** One server entry (`command`, `args`, optional `env` and `type`), checked the way its client reads it. */
function entryLaunch(
  name: string,
  entry: unknown,
  where: string,
  from: Shown["from"],
  problems: string[],
  typeRequired = false,
): Shown | undefined {
  // Entries with a URL are remote (HTTP) configs: readme-http-config.test.ts checks those.
  if (isRemote(entry)) return undefined;
  if (name !== SERVER_NAME) problems.push(`${where}: server "${name}" should be named "${SERVER_NAME}"`);
  const { command, args = [], env, type, ...unknown } = entry as Record<string, unknown>;
  if (Object.keys(unknown).length > 0) problems.push(`${where}: unknown keys ${Object.keys(unknown).join(", ")}`);
  if ((type !== undefined || typeRequired) && type !== "stdio") problems.push(`${where}: type must be "stdio"`);
  if (env !== undefined && (typeof env !== "object" || env === null)) problems.push(`${where}: env must be an object`);
  if (typeof command !== "string" || !Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    problems.push(`${where}: needs a string command and an array of string args`);
    return undefined;
  }
  return { from, command, args, where };
}

/**
 * Every JSON snippet with servers: `mcpServers` (Claude Code, Cursor, Windsurf) or VS Code's
 * `servers` (each with `type: "stdio"`); strict JSON, only our server, named as the IDE shows it.
 */
function jsonLaunches(markdown: string, problems: string[]): Shown[] {
  const launches: Shown[] = [];
  for (const block of fencedBlocks(markdown).filter(
    (b) => b.body.includes("mcpServers") || b.body.includes('"servers"'),
  )) {
    const where = `${PAGE}:${block.line} (${block.lang || "no language"} block)`;
    if (block.lang !== "json") problems.push(`${where}: a server snippet must be a json block`);
    let doc: unknown;
    try {
      doc = JSON.parse(block.body);
    } catch (error) {
      problems.push(`${where}: not valid JSON (${String(error)})`);
      continue;
    }
    const vscode = (doc as { servers?: unknown }).servers !== undefined;
    const servers = vscode ? (doc as { servers?: unknown }).servers : (doc as { mcpServers?: unknown }).mcpServers;
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
      problems.push(`${where}: ${vscode ? "servers" : "mcpServers"} must be an object`);
      continue;
    }
    for (const [name, entry] of Object.entries(servers)) {
      const launch = entryLaunch(name, entry, where, vscode ? "vscode" : "json", problems, vscode);
      if (launch) launches.push(launch);
    }
  }
  return launches;
}

/** Every Codex snippet: TOML with `[mcp_servers.<name>]` tables of `command` and `args`. */
function tomlLaunches(markdown: string, problems: string[]): Shown[] {
  const launches: Shown[] = [];
  for (const block of fencedBlocks(markdown).filter((b) => b.body.includes("[mcp_servers."))) {
    const where = `${PAGE}:${block.line} (${block.lang || "no language"} block)`;
    if (block.lang !== "toml") problems.push(`${where}: a Codex snippet must be a toml block`);
    let doc: { mcp_servers?: Record<string, unknown> };
    try {
      doc = Bun.TOML.parse(block.body) as typeof doc;
    } catch (error) {
      problems.push(`${where}: not valid TOML (${String(error)})`);
      continue;
    }
    for (const [name, entry] of Object.entries(doc.mcp_servers ?? {})) {
      const launch = entryLaunch(name, entry, where, "toml", problems);
      if (launch) launches.push(launch);
    }
  }
  return launches;
}

/** Every `claude mcp add [--scope <s>] skill-central -- <command> <args…>` line in shell blocks. */
function claudeLaunches(markdown: string, problems: string[]): Shown[] {
  const launches: Shown[] = [];
  for (const block of fencedBlocks(markdown).filter(
    (b) => b.lang === "sh" || b.lang === "bash" || b.lang === "shell",
  )) {
    for (const [offset, text] of block.body.split("\n").entries()) {
      const line = text.replace(/\s+#.*$/, "").trim();
      if (!line.startsWith("claude mcp add")) continue;
      // HTTP servers (--transport http) are checked by readme-http-config.test.ts.
      if (/\s--transport\s+(http|sse)\b/.test(line)) continue;
      const where = `${PAGE}:${block.line + 1 + offset}`;
      if (/["'`$\\]/.test(line)) {
        problems.push(`${where}: keep the line free of quotes and escapes: ${line}`);
        continue;
      }
      const tokens = line.split(/\s+/);
      const dashes = tokens.indexOf("--");
      if (dashes < 0) {
        problems.push(`${where}: put "--" between the server name and the command`);
        continue;
      }
      const head = tokens.slice(3, dashes);
      const name = head.pop();
      if (name !== SERVER_NAME)
        problems.push(`${where}: server name should be "${SERVER_NAME}", not ${JSON.stringify(name)}`);
      for (let i = 0; i < head.length; i += 2) {
        const [flag, value] = [head[i], head[i + 1]];
        if ((flag !== "--scope" && flag !== "-s") || !["local", "project", "user"].includes(value ?? ""))
          problems.push(`${where}: unexpected ${flag} ${value ?? ""}`);
      }
      const [command, ...args] = tokens.slice(dashes + 1);
      if (command === undefined) {
        problems.push(`${where}: no command after "--"`);
        continue;
      }
      launches.push({ from: "claude", command, args, where });
    }
  }
  return launches;
}

export interface PageLaunches {
  /** The page's text. */
  page: string;
  options: Map<string, boolean>;
  launches: Launch[];
  /** Snippets that would not start the server, with where they are and why. */
  problems: string[];
}

export async function pageLaunches(): Promise<PageLaunches> {
  const page = await Bun.file(join(REPO_ROOT, PAGE)).text();
  const options = await cliOptions();
  const problems: string[] = [];
  const launches = [
    ...jsonLaunches(page, problems),
    ...tomlLaunches(page, problems),
    ...claudeLaunches(page, problems),
  ].flatMap((launch): Launch[] => {
    const verdict = launchProblem(launch.command, launch.args, options);
    if ("problem" in verdict) {
      problems.push(`${launch.where}: ${verdict.problem}`);
      return [];
    }
    return [{ ...launch, kind: verdict.kind }];
  });
  return { page, options, launches, problems };
}

/** The IDE a launch belongs to: the `### ` heading above it in the page's hand-written section. */
export function ideOf(page: string, launch: Launch): string | undefined {
  const lines = page.split("\n");
  const start = lines.indexOf(HAND_WRITTEN);
  const line = Number(/:(\d+)/.exec(launch.where)?.[1]);
  if (start < 0 || !(line > start)) return undefined;
  for (let i = line - 1; i > start; i--) {
    const heading = /^(#{2,3}) (.+)$/.exec(lines[i]!);
    if (heading) return heading[1] === "###" ? heading[2] : undefined;
  }
  return undefined;
}

/** The text of one IDE's `### ` section of the hand-written configs. */
export function ideSection(page: string, ide: string): string {
  const rest = page.slice(page.indexOf(HAND_WRITTEN));
  const at = rest.indexOf(`\n### ${ide}\n`);
  if (at < 0) throw new Error(`no "### ${ide}" under "${HAND_WRITTEN}" in ${PAGE}`);
  const body = rest.slice(at + 1);
  const end = body.indexOf("\n##");
  return end < 0 ? body : body.slice(0, end + 1);
}

/** Each distinct command line of the given kinds once (several IDEs share a snippet's command). */
export function distinctLaunches(launches: Launch[], kinds: LaunchKind[]): Launch[] {
  const distinct = new Map<string, Launch>();
  for (const l of launches) if (kinds.includes(l.kind)) distinct.set(JSON.stringify([l.command, l.args]), l);
  return [...distinct.values()];
}

/**
 * Replaces the page's placeholders: `/path/to/project` (and VS Code's `${workspaceFolder}`, which
 * it fills in with the open folder) by a real folder, the checkout's entry by ours.
 */
export function fillPlaceholders(args: string[], project: string): string[] {
  return args.map((arg) =>
    arg.startsWith("/path/to/project") || arg === "${workspaceFolder}"
      ? project
      : arg.endsWith("src/cli.ts")
        ? SOURCE_ENTRY
        : arg,
  );
}
