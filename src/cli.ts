#!/usr/bin/env bun
import "./stdio-guard.ts";
import { runMcp } from "./commands/mcp.ts";
import { VERSION } from "./version.ts";

const HELP = `skill-central ${VERSION}: serves your team's skills (YAML prompts and tools) over MCP

Usage: skill-central [command] [options]

Commands:
  mcp        Run the stdio MCP server (the default when no command is given)

Options:
  --cwd <dir>     Project root (default: the current directory)
  --no-builtin    Do not load the built-in skills
  --debug-timing  Print load timings to stderr
  --version       Print the version
  --help          Show this help
`;

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  if (args.includes("--version") || args.includes("-v")) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  const command = args[0] && !args[0].startsWith("-") ? args.shift()! : "mcp";
  if (command !== "mcp") {
    process.stderr.write(`skill-central: unknown command "${command}" (try --help)\n`);
    return 2;
  }
  const cwdIndex = args.indexOf("--cwd");
  const cwd = cwdIndex >= 0 ? args[cwdIndex + 1] : undefined;
  await runMcp({
    cwd: cwd ?? process.cwd(),
    ...(args.includes("--no-builtin") && { builtin: false }),
    debugTiming: args.includes("--debug-timing"),
  });
  return -1;
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
