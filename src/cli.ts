#!/usr/bin/env bun
/**
 * The `skill-central` entry: finds the command (`mcp` by default), loads only its spec, parses its
 * options with the global ones and runs it, so a start-up pays for one command's modules alone.
 */
import "./stdio-guard.ts";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { colourEnabled, palette, type Palette } from "./cli-output/colour.ts";
import { outputWidth } from "./cli-output/columns.ts";
import { didYouMean } from "./suggest.ts";
import { EXIT_USAGE, SERVING, UsageError, type CommandSpec } from "./commands/support/command.ts";
import {
  flag,
  flagNames,
  givenOptions,
  optionHelp,
  parseArgsConfig,
  readValues,
  text,
  type RawValues,
} from "./commands/support/options.ts";
import { spec as MCP } from "./commands/mcp.ts";
import { isDirectory } from "./storage/fs-state.ts";
import { VERSION } from "./version.ts";
import { visibleLine } from "./visible-text.ts";

/** Accepted by every command. */
const GLOBAL_OPTIONS = {
  cwd: text("<dir>", "Project root, where skill-central.yaml and .skills/ are (default: the current folder)"),
  builtin: flag("Do not load the built-in skills", { negatable: true }),
  json: flag("Machine-readable output"),
  verbose: flag("Name a git or url layer's files by their cache path, not <layer>@<commit>:<path>"),
  help: flag("Show help", { short: "h" }),
  version: flag("Print the version", { short: "v" }),
};
const GLOBAL_HELP = optionHelp(GLOBAL_OPTIONS);

const COMMANDS: Record<string, () => Promise<CommandSpec>> = {
  mcp: async () => MCP,
  list: async () => (await import("./commands/list.ts")).spec,
  show: async () => (await import("./commands/show.ts")).spec,
  render: async () => (await import("./commands/render.ts")).spec,
  test: async () => (await import("./commands/test.ts")).spec,
  validate: async () => (await import("./commands/validate.ts")).spec,
  audit: async () => (await import("./commands/audit.ts")).spec,
  doctor: async () => (await import("./commands/doctor.ts")).spec,
  init: async () => (await import("./commands/init.ts")).spec,
  new: async () => (await import("./commands/new.ts")).spec,
  convert: async () => (await import("./commands/convert.ts")).spec,
  install: async () => (await import("./commands/install.ts")).spec,
  uninstall: async () => (await import("./commands/uninstall.ts")).spec,
  add: async () => (await import("./commands/add.ts")).spec,
  remove: async () => (await import("./commands/remove.ts")).spec,
  sync: async () => (await import("./commands/sync.ts")).spec,
  find: async () => (await import("./commands/find.ts")).spec,
  budget: async () => (await import("./commands/budget.ts")).spec,
  overlap: async () => (await import("./commands/overlap.ts")).spec,
  eval: async () => (await import("./commands/eval.ts")).spec,
  board: async () => (await import("./commands/board.ts")).spec,
  publish: async () => (await import("./commands/publish.ts")).spec,
  usage: async () => (await import("./commands/usage.ts")).spec,
  log: async () => (await import("./commands/log.ts")).spec,
  block: async () => (await import("./commands/block.ts")).spec,
  approve: async () => (await import("./commands/approve.ts")).spec,
  unblock: async () => (await import("./commands/block.ts")).unblockSpec,
};
const COMMAND_NAMES = [...Object.keys(COMMANDS), "help"];

function commandHelp(spec: CommandSpec, colours: Palette): string {
  let text = `${colours.bold("Usage:")} skill-central ${spec.usage}\n\n${spec.summary}.\n`;
  if (spec.description) text += `\n${spec.description}\n`;
  if (Object.keys(spec.options).length > 0) text += `\n${colours.bold("Options:")}\n${optionHelp(spec.options)}`;
  text += `\n${colours.bold("Global options:")}\n${GLOBAL_HELP}`;
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
  text += `\n${colours.bold("Global options:")}\n${GLOBAL_HELP}`;
  text += "\nRun `skill-central <command> --help` for a command's options.\n";
  return text;
}

/** parseArgs' errors, restated as one line that names the command and suggests a fix. */
function usageMessage(error: unknown, spec: CommandSpec): string {
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flags = flagNames({ ...GLOBAL_OPTIONS, ...spec.options });
    const flag = quoted.split("=")[0]!;
    return `unknown option "${flag}"${didYouMean(flag, flags) || ` (see skill-central ${spec.name} --help)`}`;
  }
  if (e.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return `unexpected argument "${quoted}" (usage: skill-central ${spec.usage})`;
  if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = quoted.split(" ")[0]!;
    return message.includes("argument missing")
      ? `option ${flag} needs a value`
      : message.charAt(0).toLowerCase() + message.slice(1);
  }
  return message;
}

/**
 * The command is the first positional argument. Global options (and the default command's)
 * may come before it, so a lenient pass that knows which of them take values finds it.
 */
function findCommand(argv: string[]): { value: string; index: number } | undefined {
  const { tokens } = parseArgs({
    args: argv,
    options: parseArgsConfig({ ...GLOBAL_OPTIONS, ...MCP.options }),
    strict: false,
    allowPositionals: true,
    allowNegative: true,
    tokens: true,
  });
  for (const token of tokens) if (token.kind === "positional") return token;
  return undefined;
}

function positionalsProblem(spec: CommandSpec, positionals: readonly string[]): string | undefined {
  if (positionals.length < spec.positionals.min) return `missing argument (usage: skill-central ${spec.usage})`;
  if (positionals.length > spec.positionals.max)
    return `unexpected argument "${positionals[spec.positionals.max]}" (usage: skill-central ${spec.usage})`;
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  const colours = palette(colourEnabled(process.stdout.isTTY, process.env));
  const errColours = palette(colourEnabled(process.stderr.isTTY, process.env));
  const fail = (where: string, message: string): number => {
    // A usage error may quote a layer or skill name from a file: shown, never obeyed.
    process.stderr.write(`${where}: ${errColours.red("error")}: ${visibleLine(message)}\n`);
    return EXIT_USAGE;
  };

  const commandToken = findCommand(argv);
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
  if (!load)
    return fail(
      "skill-central",
      `unknown command "${name}"${didYouMean(name, COMMAND_NAMES)}; see skill-central --help`,
    );
  const spec = await load();
  if (helpFor !== undefined) {
    process.stdout.write(commandHelp(spec, colours));
    return 0;
  }

  let parsed: { values: RawValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: parseArgsConfig({ ...GLOBAL_OPTIONS, ...spec.options }),
      strict: true,
      allowPositionals: spec.positionals.max > 0,
      allowNegative: true,
    });
  } catch (error) {
    return fail(`skill-central ${spec.name}`, usageMessage(error, spec));
  }
  const { positionals } = parsed;
  const values = readValues(GLOBAL_OPTIONS, parsed.values);
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(commandToken ? commandHelp(spec, colours) : await mainHelp(colours));
    return 0;
  }
  const miscount = positionalsProblem(spec, positionals);
  if (miscount) return fail(`skill-central ${spec.name}`, miscount);
  const cwd = resolve(process.cwd(), values.cwd ?? ".");
  // The server checks only a --cwd it is given (one stat): a typo in an IDE entry must not serve the built-ins silently.
  if ((spec !== MCP || values.cwd !== undefined) && !isDirectory(cwd))
    return fail(`skill-central ${spec.name}`, `--cwd: "${values.cwd}" is not a folder`);

  const json = values.json;
  const ctx = {
    cwd,
    ...(!values.builtin && { builtin: false as const }),
    json,
    ...(values.verbose && { verbose: true }),
    args: positionals,
    options: readValues(spec.options, parsed.values),
    given: givenOptions(parsed.values),
    colours: json ? palette(false) : colours,
    ...outputWidth(process.stdout, process.env),
    ...(process.stderr.isTTY && { errTerminal: { columns: process.stderr.columns || 80 } }),
    out: (text: string) => void process.stdout.write(text),
    err: (text: string) => void process.stderr.write(text),
  };
  try {
    return await spec.run(ctx);
  } catch (error) {
    if (error instanceof UsageError) return fail(`skill-central ${spec.name}`, error.message);
    throw error;
  }
}

const code = await main(process.argv.slice(2));
// Commands end by themselves once their output is written; a serving command manages its own exit.
if (code !== SERVING) process.exitCode = code;
