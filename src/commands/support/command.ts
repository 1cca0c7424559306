/** A command's spec (options declared once, run), what it is handed, the exit codes, and the helpers every command uses. */
import { loadSkills, type LoadResult } from "../../load/load-skills.ts";
import { loadReport } from "../../load/report.ts";
import { colourDiagnostic, type Palette } from "../../cli-output/colour.ts";
import type { Options, Values } from "./options.ts";

export { UsageError } from "./options.ts";

/** Everything a command gets from the entry point; commands never read `process.argv`. */
export interface CommandContext<V = unknown> {
  /** Absolute project root (`--cwd`, else the working directory). */
  cwd: string;
  /** `false` with `--no-builtin`; otherwise the configs decide. */
  builtin?: false;
  json: boolean;
  /** `--verbose`: a git or url layer's files are named by their cache path, not `<layer>@<commit>:<path>`. */
  verbose?: boolean;
  /** Positional arguments after the command name. */
  args: string[];
  /** The command's own options, typed by their declarations. */
  options: V;
  /** The options named on the command line, whether or not their values have been read. */
  given: ReadonlySet<string>;
  colours: Palette;
  /** The width output is fitted to (COLUMNS, else a terminal's; none when piped): tables are cut to it. */
  columns?: number;
  /** Set when stderr is a terminal (its width): progress lines are drawn there, and only there. */
  errTerminal?: { columns: number };
  out(text: string): void;
  err(text: string): void;
}

export interface CommandSpec<O extends Options = Options> {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** `list [--type prompt|tool] …`, without the program name. */
  usage: string;
  /** Paragraphs shown by `--help` after the usage line. */
  description?: string;
  /** The command's own options, in `--help` order (global ones are added by the entry point). */
  options: O;
  /** Examples shown by `--help`. */
  examples?: readonly string[];
  /** How many positional arguments the command takes. */
  positionals: { min: number; max: number };
  run(ctx: CommandContext<Values<O>>): Promise<number>;
}

/** A command's spec, with its options' types inferred for `run`. */
export function command<O extends Options>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

/** What a serving command (`mcp`, `board`) returns: it runs until a signal and ends the process itself (src/serve/drain.ts). */
export const SERVING = -1;
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * The server's own loading pipeline, with the command line's options. Locators are kept: a
 * command may point at a field after the load (a failing example) without reading the file again.
 */
export function load(ctx: CommandContext): Promise<LoadResult> {
  return loadSkills({
    cwd: ctx.cwd,
    ...(ctx.builtin === false && { builtin: false }),
    ...(ctx.verbose && { cachePaths: true }),
    keepLocators: true,
  });
}

/** Load findings go to stderr, as the server logs them, so stdout stays the command's output. */
export function reportLoad(ctx: CommandContext, result: LoadResult): void {
  for (const line of loadReport(result)) ctx.err(`${colourDiagnostic(line, ctx.colours)}\n`);
}

export function json(ctx: CommandContext, value: unknown): void {
  ctx.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
