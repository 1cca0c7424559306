import { normaliseTag } from "../skill/tags.ts";
import { skillView } from "../registry/describe.ts";
import type { Candidate } from "../registry/registry.ts";
import { didYouMean } from "../suggest.ts";
import { formatTable } from "../cli-output/table.ts";
import { EXIT_OK, json, load, reportLoad, stringOption, UsageError, type CommandSpec } from "./support/command.ts";

export const spec: CommandSpec = {
  name: "list",
  summary: "List the effective skills (what the server serves)",
  usage: "list [--type prompt|tool] [--tag <tag>] [--layer <name>] [--json]",
  description: "One row per served skill: id, type, layer, priority, tags and description, sorted by id.\nWith --json, an array of skill objects (the same fields as `show --json`'s \"skill\").",
  options: { type: { type: "string" }, tag: { type: "string" }, layer: { type: "string" } },
  optionHelp: [
    ["--type prompt|tool", "Only prompts, or only tools"],
    ["--tag <tag>", "Only skills carrying this tag (case-insensitive)"],
    ["--layer <name>", "Only skills served from this layer"],
  ],
  examples: ["skill-central list", "skill-central list --type tool --json", "skill-central list --tag review --layer team"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const type = stringOption(ctx, "type");
    if (type !== undefined && type !== "prompt" && type !== "tool") {
      throw new UsageError(`--type must be "prompt" or "tool", not "${type}"${didYouMean(type, ["prompt", "tool"])}`);
    }
    const tagOption = stringOption(ctx, "tag");
    const tag = tagOption === undefined ? undefined : normaliseTag(tagOption);
    const layer = stringOption(ctx, "layer");
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const { registry } = loaded;
    if (layer !== undefined && !registry.layers.some((l) => l.name === layer)) {
      const names = registry.layers.map((l) => l.name);
      throw new UsageError(`no layer named "${layer}"${didYouMean(layer, names)}; layers: ${names.join(", ") || "none"}`);
    }
    const effective = registry.served();
    const shown = effective.filter(
      (c) => (type === undefined || c.skill.type === type) && (tag === undefined || c.skill.tags.includes(tag)) && (layer === undefined || c.layer.name === layer),
    );
    if (ctx.json) {
      json(ctx, shown.map((c) => skillView(c, true)));
      return EXIT_OK;
    }
    if (shown.length === 0) {
      ctx.err("no skills match\n");
      return EXIT_OK;
    }
    const rows = [["ID", "TYPE", "LAYER", "PRIORITY", "TAGS", "DESCRIPTION"]];
    for (const c of shown) rows.push([c.skill.id, c.skill.type, c.layer.name, String(c.layer.priority), c.skill.tags.join(","), c.skill.description]);
    ctx.out(formatTable(rows, { ...(ctx.columns !== undefined && { maxWidth: ctx.columns }), header: ctx.colours.bold }));
    return EXIT_OK;
  },
};
