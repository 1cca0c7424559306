/** `skill-central convert`: a served skill written in the other format, saying what that format cannot carry. */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { folderFilesOf } from "../registry/describe.ts";
import { toSkillMd, toYaml, type Conversion } from "../skill/convert.ts";
import { didYouMean } from "../suggest.ts";
import { createFile } from "./support/scaffold.ts";
import {
  command,
  EXIT_FAILURE,
  EXIT_OK,
  json,
  load,
  reportLoad,
  UsageError,
  type CommandContext,
} from "./support/command.ts";
import { choice, text } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

const TARGETS = ["skill-md", "yaml"] as const;

export const spec = command({
  name: "convert",
  summary: "Turn a skill into the other format (YAML ⇄ Agent Skills SKILL.md folder)",
  usage: "convert <id> --to skill-md|yaml [--out <dir>] [--json]",
  description:
    "Writes the served skill <id> in the other format, beside the original (in its layer folder) or in --out,\n" +
    "and says what the other format cannot carry: tools have no SKILL.md form; a SKILL.md body is not a\n" +
    "Handlebars template; positional $N, ${CLAUDE_SKILL_DIR} and a folder's other files have no YAML form.\n" +
    "Never overwrites: an existing target is an error. The original is left as it is (remove it once the\n" +
    "new file serves: two files with one id in one layer conflict).",
  options: {
    to: choice(TARGETS, "The format to write (required)"),
    out: text("<dir>", "Where to write it (default: the folder the original is in)"),
  },
  examples: [
    "skill-central convert review-pr --to skill-md",
    "skill-central convert pdf-tools --to yaml --out .skills/project",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.args[0]!;
    const to = ctx.options.to;
    if (to === undefined) throw new UsageError("--to is required: --to skill-md or --to yaml");
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const candidate = loaded.registry.get(id);
    if (!candidate) {
      ctx.err(
        `error: ${visibleLine(
          `unknown skill "${id}"${didYouMean(
            id,
            loaded.registry.served().map((c) => c.skill.id),
          )}`,
        )}\n`,
      );
      return EXIT_FAILURE;
    }
    const from = candidate.skill.format ?? "yaml";
    if (from === to) {
      ctx.err(
        `error: "${id}" is already ${to === "yaml" ? "a YAML skill" : "an Agent Skills folder"} (${candidate.source})\n`,
      );
      return EXIT_FAILURE;
    }
    const content = candidate.content.read();
    const converted =
      to === "skill-md"
        ? toSkillMd(candidate.skill, content)
        : toYaml(
            candidate.skill,
            content,
            folderFilesOf(candidate).map((f) => f.path),
          );
    if ("refused" in converted) {
      ctx.err(`error: ${visibleLine(converted.refused)}\n`);
      return EXIT_FAILURE;
    }
    // A YAML skill's file sits in its layer folder; a skill folder's SKILL.md one level deeper.
    const home = from === "yaml" ? dirname(candidate.path) : dirname(dirname(candidate.path));
    const outOption = ctx.options.out;
    const base = outOption === undefined ? home : isAbsolute(outOption) ? outOption : join(ctx.cwd, outOption);
    const target = to === "skill-md" ? join(base, id) : base;
    return write(ctx, converted, target, loaded.display);
  },
});

function write(ctx: CommandContext, converted: Conversion, target: string, display: (path: string) => string): number {
  const paths = converted.files.map((f) => join(target, f.path));
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length > 0) {
    ctx.err(
      `error: ${existing.map(display).join(", ")} already exists; nothing was written (convert never overwrites)\n`,
    );
    return EXIT_FAILURE;
  }
  for (const [i, file] of converted.files.entries()) createFile(paths[i]!, file.text);
  if (ctx.json) {
    json(ctx, { written: paths.map(display), lost: converted.lost });
    return EXIT_OK;
  }
  let text = paths.map((p) => `${ctx.colours.green("created")} ${display(p)}\n`).join("");
  if (converted.lost.length > 0)
    text += `\nWhat the new format cannot carry:\n${converted.lost.map((l) => `  - ${l}\n`).join("")}`;
  text +=
    "\nThe original is unchanged: remove it once the new one serves (one id in two files of a layer is a conflict).\n";
  ctx.out(text);
  return EXIT_OK;
}
