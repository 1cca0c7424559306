/** `skill-central list`: the served skills, one row each. */
import { normaliseTag } from "../skill/tags.ts";
import { skillView } from "../registry/describe.ts";
import { didYouMean } from "../suggest.ts";
import { formatTable } from "../cli-output/table.ts";
import { command, EXIT_OK, json, load, reportLoad, UsageError } from "./support/command.ts";
import { choice, text } from "./support/options.ts";

const TAGS_COLUMN = 4;
/** The room a description needs before the tags make way: enough for its first words. */
const DESCRIPTION_ROOM = 32;

export const spec = command({
  name: "list",
  summary: "List the effective skills (what the server serves)",
  usage: "list [--type prompt|tool] [--tag <tag>] [--layer <name>] [--json]",
  description:
    "One row per served skill: id, type, layer, priority, tags and description, sorted by id. On a terminal\n" +
    "(or with COLUMNS set) each row fits its width: the description is cut with …, and the tags are left\n" +
    "out when a description would have too little room; piped, descriptions are whole. With --json, an array of skill objects (the same fields as\n" +
    '`show --json`\'s "skill").',
  options: {
    type: choice(["prompt", "tool"], "Only prompts, or only tools", { quoted: true }),
    tag: text("<tag>", "Only skills carrying this tag (case-insensitive)"),
    layer: text("<name>", "Only skills served from this layer"),
  },
  examples: [
    "skill-central list",
    "skill-central list --type tool --json",
    "skill-central list --tag review --layer team",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { type, layer } = ctx.options;
    const tag = ctx.options.tag === undefined ? undefined : normaliseTag(ctx.options.tag);
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const { registry } = loaded;
    if (layer !== undefined && !registry.layers.some((l) => l.name === layer)) {
      const names = registry.layers.map((l) => l.name);
      throw new UsageError(
        `no layer named "${layer}"${didYouMean(layer, names)}; layers: ${names.join(", ") || "none"}`,
      );
    }
    const effective = registry.served();
    const shown = effective.filter(
      (c) =>
        (type === undefined || c.skill.type === type) &&
        (tag === undefined || c.skill.tags.includes(tag)) &&
        (layer === undefined || c.layer.name === layer),
    );
    if (ctx.json) {
      json(
        ctx,
        shown.map((c) => skillView(c, true)),
      );
      return EXIT_OK;
    }
    if (shown.length === 0) {
      ctx.err("no skills match\n");
      return EXIT_OK;
    }
    const rows = [["ID", "TYPE", "LAYER", "PRIORITY", "TAGS", "DESCRIPTION"]];
    for (const c of shown)
      rows.push([
        c.skill.id,
        c.skill.type,
        c.layer.name,
        String(c.layer.priority),
        c.skill.tags.join(","),
        c.skill.description,
      ]);
    // Fitted to the terminal (or COLUMNS); piped, every description is whole. The tags make way
    // when a description would have too little room to be read (docs/cli.md#list).
    ctx.out(
      formatTable(rows, {
        ...(ctx.columns !== undefined && { maxWidth: ctx.columns }),
        header: ctx.colours.bold,
        drop: { columns: [TAGS_COLUMN], lastWidth: DESCRIPTION_ROOM },
      }),
    );
    return EXIT_OK;
  },
});
