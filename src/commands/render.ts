/** `skill-central render`: what `prompts/get` or `tools/call` would return for a skill, through the server's own code. */
import { invokePrompt, invokeTool } from "../invoke/invoke.ts";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import type { Skill } from "../skill/skill.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import { didYouMean } from "../suggest.ts";
import { formatDiagnostic } from "../diagnostics.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { argumentWarnings } from "./support/argument-warnings.ts";
import { coerceArgument } from "./support/arguments.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad, UsageError } from "./support/command.ts";
import { list, text } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

/** `--args-json` first, then each `--arg k=v` on top of it. */
export function collectArguments(
  skill: Skill | undefined,
  argsJson: string | undefined,
  pairs: readonly string[],
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (argsJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(argsJson);
    } catch (error) {
      throw new UsageError(`--args-json is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isPlainObject(parsed)) throw new UsageError('--args-json must be a JSON object, e.g. \'{"summary": "x"}\'');
    args = { ...parsed };
  }
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--arg takes name=value, got "${pair}"`);
    const name = pair.slice(0, eq);
    args[name] = coerceArgument(skill, name, pair.slice(eq + 1));
  }
  return args;
}

export const spec = command({
  name: "render",
  summary: "Print exactly what prompts/get or tools/call would return",
  usage: "render <id> [--arg name=value]… [--args-json '{…}'] [--json]",
  description:
    "Renders a prompt skill (as prompts/get) or calls a tool skill (as tools/call) through the server's own\n" +
    "code and prints the text. `render skills:compose --arg tags=a,b` composes prompts by tag.\n" +
    "--arg values are text, except for a tool property whose schema type is not string (number, integer,\n" +
    "boolean, array, object): there the value is read as JSON. --args-json passes values as given.\n" +
    "Validation errors go to stderr, one per line, and exit 1. Warnings go to stderr too and do not change the\n" +
    "result: an argument name the skill does not have (with the closest one), a required argument given\n" +
    "empty, and for skills:compose a required argument of a composed skill left empty (compose renders it blank).",
  options: {
    arg: list("name=value", "An argument (repeatable); overrides the same name in --args-json"),
    "args-json": text("<json>", "All arguments as one JSON object"),
  },
  examples: [
    "skill-central render review-pr --arg context='a small fix'",
    "skill-central render commit-conventions --arg type=fix --arg summary='handle empty input'",
    "skill-central render skills:compose --arg tags=review,security",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.args[0]!;
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const { registry } = loaded;
    const skill = registry.get(id)?.skill;
    if (!skill && id !== COMPOSE_PROMPT_NAME) {
      const known = [
        ...registry
          .resolutions()
          .filter((r) => r.effective)
          .map((r) => r.id),
        COMPOSE_PROMPT_NAME,
      ];
      const withdrawn = registry.resolution(id)
        ? " (it is not served: its files conflict; see `skill-central show`)"
        : didYouMean(id, known);
      ctx.err(`error: ${visibleLine(`unknown skill "${id}"${withdrawn}`)}\n`);
      return EXIT_FAILURE;
    }
    const args = collectArguments(skill, ctx.options["args-json"], ctx.options.arg);
    const warnings = argumentWarnings(registry, id, skill, args);
    if (!ctx.json) for (const w of warnings) ctx.err(`${colourDiagnostic(formatDiagnostic(w), ctx.colours)}\n`);
    const result = skill?.type === "tool" ? await invokeTool(registry, id, args) : invokePrompt(registry, id, args);
    if (ctx.json) {
      const warned =
        warnings.length > 0
          ? {
              warnings: warnings.map((w) => ({
                rule: w.code,
                message: w.message,
                ...(w.hint !== undefined && { hint: w.hint }),
              })),
            }
          : {};
      json(
        ctx,
        result.ok
          ? { id, text: result.text, ...warned }
          : {
              id,
              error: { code: result.error.code, message: result.error.message, problems: result.error.problems },
              ...warned,
            },
      );
      return result.ok ? EXIT_OK : EXIT_FAILURE;
    }
    if (!result.ok) {
      for (const problem of result.error.problems) ctx.err(`${ctx.colours.red("error")}: ${visibleLine(problem)}\n`);
      return EXIT_FAILURE;
    }
    // Exactly what the IDE receives, byte for byte: `render` is the skill's own output, made to be
    // piped (into a file, a model, a diff), not a report about it, so nothing is escaped here. Every
    // message about the skill (the errors and warnings above, on stderr) shows its controls instead.
    ctx.out(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
    return EXIT_OK;
  },
});
