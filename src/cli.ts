#!/usr/bin/env bun
import "./stdio-guard.ts";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { colourEnabled, palette, type Palette } from "./cli-output/colour.ts";
import { didYouMean } from "./suggest.ts";
import { EXIT_USAGE, UsageError, type CommandContext, type CommandSpec, type OptionValue } from "./commands/support/command.ts";
import { isDirectory } from "./storage/fs-state.ts";
import { CATALOG_MODES, isCatalogMode, type CatalogMode } from "./config/catalog-settings.ts";
import { VERSION } from "./version.ts";

/** Accepted by every command. `--no-builtin` is the negation of `builtin`. */
const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  cwd: { type: "string" },
  builtin: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
};

const GLOBAL_HELP: readonly (readonly [string, string])[] = [
  ["--cwd <dir>", "Project root, where skill-central.yaml and .skills/ are (default: the current folder)"],
  ["--no-builtin", "Do not load the built-in skills"],
  ["--json", "Machine-readable output"],
  ["-h, --help", "Show help"],
  ["-v, --version", "Print the version"],
];

/** Booleans whose `--no-` form is documented (suggestions offer it). */
const NEGATABLE = new Set(["builtin", "watch"]);

/**
 * The server is the default command. Its module is owned elsewhere; this is only its argv shape.
 * It is imported when run, so other commands never load the MCP SDK.
 */
const MCP: CommandSpec = {
  name: "mcp",
  summary: "Run the MCP server: stdio (the default when no command is given), or HTTP for a team with --http",
  usage: "mcp [--no-watch] [--page-size <n>] [--catalog auto|on|off] [--debug-timing] [--http [--port <n>] [--host <addr>] [--stateless] [--token-file <path>] …]",
  description:
    "Serves the skills over MCP on stdin/stdout (JSON-RPC only on stdout; logs on stderr).\n" +
    "With --http, serves Streamable HTTP at /mcp instead (2025-11-25 sessions and 2026-07-28 requests on one port), with\n" +
    "GET /healthz and /readyz; an address other than loopback needs bearer tokens (--token-file or SKILL_CENTRAL_TOKEN).",
  options: {
    "debug-timing": { type: "boolean" },
    watch: { type: "boolean" },
    "page-size": { type: "string" },
    catalog: { type: "string" },
    http: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    stateless: { type: "boolean" },
    "token-file": { type: "string" },
    "allow-origin": { type: "string", multiple: true },
    "allow-host": { type: "string", multiple: true },
    "max-sessions": { type: "string" },
    "session-timeout": { type: "string" },
    keepalive: { type: "string" },
  },
  optionHelp: [
    ["--no-watch", "Do not reload when skill or config files change"],
    ["--page-size <n>", "Page size for list requests (a positive whole number)"],
    ["--catalog auto|on|off", "Catalog tools (find_skills, load_skill, run_skill_tool): per client (auto, the default), always, or never"],
    ["--debug-timing", "Print load timings to stderr"],
    ["--http", "Serve Streamable HTTP at /mcp instead of stdio"],
    ["--port <n>", "HTTP port (default 8740; 0 picks a free one)"],
    ["--host <addr>", "HTTP address to listen on (default 127.0.0.1; others need tokens)"],
    ["--stateless", "HTTP without sessions or per-client state, for replicas behind a load balancer"],
    ["--token-file <path>", "Bearer tokens, one \"LABEL TOKEN\" per line (also: SKILL_CENTRAL_TOKEN)"],
    ["--allow-origin <origin>", "A browser origin that may call the server, e.g. https://app.example.com (repeatable)"],
    ["--allow-host <name>", "A host name the server answers to besides localhost (repeatable)"],
    ["--max-sessions <n>", "Open HTTP sessions at most (default 1000)"],
    ["--session-timeout <s>", "Close an HTTP session idle this many seconds (default 1800)"],
    ["--keepalive <s>", "Seconds between SSE keep-alive comments on open streams (default 15)"],
  ],
  examples: [
    "skill-central mcp",
    "skill-central mcp --cwd /path/to/project --no-builtin",
    "skill-central mcp --http --port 8740",
    "skill-central mcp --http --host 0.0.0.0 --token-file /etc/skill-central/tokens --stateless",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const pageSize = positiveInteger(ctx.options["page-size"], "--page-size");
    const catalog = catalogMode(ctx.options.catalog);
    const mcpOptions = {
      cwd: ctx.cwd,
      ...(ctx.builtin === false && { builtin: false as const }),
      debugTiming: ctx.options["debug-timing"] === true,
      watch: ctx.options.watch !== false,
      ...(pageSize !== undefined && { pageSize }),
      ...(catalog !== undefined && { catalog }),
    };
    if (ctx.options.http === true) {
      const [{ runMcpHttp }, http] = await Promise.all([import("./commands/mcp-http.ts"), import("./mcp/http/options.ts")]);
      const port = wholeNumber(ctx.options.port, "--port", 0, 65_535) ?? http.DEFAULT_PORT;
      const host = typeof ctx.options.host === "string" ? ctx.options.host : http.DEFAULT_HOST;
      if (host.trim() === "") throw new UsageError("--host needs an address, e.g. 127.0.0.1 or 0.0.0.0");
      const tokenFile = typeof ctx.options["token-file"] === "string" ? ctx.options["token-file"] : undefined;
      await runMcpHttp(mcpOptions, {
        host,
        port,
        stateless: ctx.options.stateless === true,
        ...(tokenFile !== undefined && { tokenFile: resolve(process.cwd(), tokenFile) }),
        allowedOrigins: strings(ctx.options["allow-origin"]),
        allowedHosts: strings(ctx.options["allow-host"]),
        maxSessions: positiveInteger(ctx.options["max-sessions"], "--max-sessions") ?? http.DEFAULT_MAX_SESSIONS,
        sessionIdleMs: (positiveInteger(ctx.options["session-timeout"], "--session-timeout") ?? http.DEFAULT_SESSION_IDLE_MS / 1000) * 1000,
        keepAliveMs: (wholeNumber(ctx.options.keepalive, "--keepalive", 1, 120) ?? http.DEFAULT_KEEPALIVE_MS / 1000) * 1000,
      });
      return -1;
    }
    const httpOnly = ["port", "host", "stateless", "token-file", "allow-origin", "allow-host", "max-sessions", "session-timeout", "keepalive"].find((name) => ctx.options[name] !== undefined);
    if (httpOnly !== undefined) throw new UsageError(`--${httpOnly} applies to the HTTP server: add --http`);
    const { runMcp } = await import("./commands/mcp.ts");
    await runMcp(mcpOptions);
    return -1;
  },
};

function wholeNumber(raw: OptionValue, flag: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${String(raw)}"`);
  }
  return n;
}

function positiveInteger(raw: OptionValue, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive whole number, not "${String(raw)}"`);
  return n;
}

function catalogMode(raw: OptionValue): CatalogMode | undefined {
  if (raw === undefined) return undefined;
  if (isCatalogMode(raw)) return raw;
  const text = String(raw);
  throw new UsageError(`--catalog must be auto, on or off, not "${text}"${didYouMean(text, CATALOG_MODES)}`);
}

function strings(raw: OptionValue): string[] {
  return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((v): v is string => typeof v === "string");
}

const COMMANDS: Record<string, () => Promise<CommandSpec>> = {
  mcp: async () => MCP,
  list: async () => (await import("./commands/list.ts")).spec,
  show: async () => (await import("./commands/show.ts")).spec,
  render: async () => (await import("./commands/render.ts")).spec,
  test: async () => (await import("./commands/test.ts")).spec,
  validate: async () => (await import("./commands/validate.ts")).spec,
  doctor: async () => (await import("./commands/doctor.ts")).spec,
  init: async () => (await import("./commands/init.ts")).spec,
  new: async () => (await import("./commands/new.ts")).spec,
  convert: async () => (await import("./commands/convert.ts")).spec,
  install: async () => (await import("./commands/install.ts")).spec,
  uninstall: async () => (await import("./commands/uninstall.ts")).spec,
  sync: async () => (await import("./commands/sync.ts")).spec,
  find: async () => (await import("./commands/find.ts")).spec,
};
const COMMAND_NAMES = [...Object.keys(COMMANDS), "help"];

function optionLines(lines: readonly (readonly [string, string])[]): string {
  const width = Math.max(...lines.map(([flag]) => flag.length));
  return lines.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}\n`).join("");
}

function commandHelp(spec: CommandSpec, colours: Palette): string {
  let text = `${colours.bold("Usage:")} skill-central ${spec.usage}\n\n${spec.summary}.\n`;
  if (spec.description) text += `\n${spec.description}\n`;
  if (spec.optionHelp.length > 0) text += `\n${colours.bold("Options:")}\n${optionLines(spec.optionHelp)}`;
  text += `\n${colours.bold("Global options:")}\n${optionLines(GLOBAL_HELP)}`;
  if (spec.examples?.length) text += `\n${colours.bold("Examples:")}\n${spec.examples.map((e) => `  ${e}\n`).join("")}`;
  return text;
}

async function mainHelp(colours: Palette): Promise<string> {
  const specs = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const width = Math.max(...specs.map((s) => s.name.length));
  let text = `skill-central ${VERSION}: serves your team's skills (YAML prompts and tools) over MCP\n\n`;
  text += `${colours.bold("Usage:")} skill-central [command] [options]\n\n${colours.bold("Commands:")}\n`;
  text += specs.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}\n`).join("");
  text += `  ${"help".padEnd(width)}  Show help for a command\n`;
  text += `\n${colours.bold("Global options:")}\n${optionLines(GLOBAL_HELP)}`;
  text += "\nRun `skill-central <command> --help` for a command's options.\n";
  return text;
}

/** parseArgs' errors, restated as one line that names the command and suggests a fix. */
function usageMessage(error: unknown, spec: CommandSpec): string {
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const options = { ...GLOBAL_OPTIONS, ...spec.options };
    const flags = Object.keys(options).flatMap((name) => [`--${name}`, ...(NEGATABLE.has(name) ? [`--no-${name}`] : [])]);
    const flag = quoted.split("=")[0]!;
    return `unknown option "${flag}"${didYouMean(flag, flags) || ` (see skill-central ${spec.name} --help)`}`;
  }
  if (e.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return `unexpected argument "${quoted}" (usage: skill-central ${spec.usage})`;
  if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = quoted.split(" ")[0]!;
    return message.includes("argument missing") ? `option ${flag} needs a value` : message.charAt(0).toLowerCase() + message.slice(1);
  }
  return message;
}

async function main(argv: string[]): Promise<number> {
  const colours = palette(colourEnabled(process.stdout.isTTY, process.env));
  const errColours = palette(colourEnabled(process.stderr.isTTY, process.env));
  const fail = (where: string, message: string): number => {
    process.stderr.write(`${where}: ${errColours.red("error")}: ${message}\n`);
    return EXIT_USAGE;
  };

  // The command is the first positional argument. Global options (and the default command's)
  // may come before it, so a lenient pass that knows which of them take values finds it.
  const { tokens } = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...MCP.options }, strict: false, allowPositionals: true, allowNegative: true, tokens: true });
  const commandToken = tokens.find((t) => t.kind === "positional");
  const rest = commandToken ? argv.filter((_, i) => i !== commandToken.index) : argv;
  let name = commandToken?.value ?? "mcp";
  let helpFor: string | undefined;
  if (name === "help") {
    helpFor = rest.find((a) => !a.startsWith("-"));
    if (helpFor === undefined) {
      process.stdout.write(await mainHelp(colours));
      return 0;
    }
    name = helpFor;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) return fail("skill-central", `unknown command "${name}"${didYouMean(name, COMMAND_NAMES)}; see skill-central --help`);
  const spec = await load();
  if (helpFor !== undefined) {
    process.stdout.write(commandHelp(spec, colours));
    return 0;
  }

  let parsed: { values: Record<string, OptionValue>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...spec.options }, strict: true, allowPositionals: spec.positionals.max > 0, allowNegative: true });
  } catch (error) {
    return fail(`skill-central ${spec.name}`, usageMessage(error, spec));
  }
  const { values, positionals } = parsed;
  if (values.version === true) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help === true) {
    process.stdout.write(commandToken ? commandHelp(spec, colours) : await mainHelp(colours));
    return 0;
  }
  if (positionals.length < spec.positionals.min) {
    return fail(`skill-central ${spec.name}`, `missing argument (usage: skill-central ${spec.usage})`);
  }
  if (positionals.length > spec.positionals.max) {
    return fail(`skill-central ${spec.name}`, `unexpected argument "${positionals[spec.positionals.max]}" (usage: skill-central ${spec.usage})`);
  }
  const cwd = resolve(process.cwd(), typeof values.cwd === "string" ? values.cwd : ".");
  if (spec !== MCP && !isDirectory(cwd)) return fail(`skill-central ${spec.name}`, `--cwd: "${values.cwd}" is not a folder`);

  const ctx: CommandContext = {
    cwd,
    ...(values.builtin === false && { builtin: false }),
    json: values.json === true,
    args: positionals,
    options: values,
    colours,
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(process.stderr.isTTY && { errTerminal: { columns: process.stderr.columns || 80 } }),
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
  try {
    return await spec.run({ ...ctx, colours: ctx.json ? palette(false) : colours });
  } catch (error) {
    if (error instanceof UsageError) return fail(`skill-central ${spec.name}`, error.message);
    throw error;
  }
}

const code = await main(process.argv.slice(2));
// Commands end by themselves once their output is written; the server (-1) manages its own exit.
if (code >= 0) process.exitCode = code;
