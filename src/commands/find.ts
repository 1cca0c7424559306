/** `skill-central find`: the served skills searched as the `find_skills` catalog tool searches them. */
import { formatTable } from "../cli-output/table.ts";
import { modelMayUse } from "../invoke/load-skill.ts";
import { foundSkill, searchIndexOf, searchSkills } from "../registry/search.ts";
import { normaliseTag } from "../skill/tags.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad } from "./support/command.ts";
import { choice, flag, list, positiveInt } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

const DEFAULT_LIMIT = 20;

export const spec = command({
  name: "find",
  summary: "Search the served skills, as the find_skills tool does",
  usage: "find [<query>…] [--tag <tag>]… [--type prompt|tool] [--limit <n>] [--model] [--json]",
  description:
    "Ranks the served skills by how well their name, title, tags, description and headings match the query\n" +
    "(the same search as the find_skills catalog tool; see docs/catalog.md). Without a query, lists them by id.\n" +
    "Exits 1 when nothing matches. --model shows only what a model may use (not disable-model-invocation skills).",
  options: {
    tag: list("<tag>", "Only skills carrying this tag (repeatable: every one)"),
    type: choice(["prompt", "tool"], "Only prompts, or only tools", { quoted: true }),
    limit: positiveInt("<n>", `At most this many results (default ${DEFAULT_LIMIT})`, { default: DEFAULT_LIMIT }),
    model: flag("Only skills a model may use, as find_skills returns them"),
  },
  examples: [
    "skill-central find review a pull request",
    'skill-central find "k8s manifests" --json',
    "skill-central find --tag security --type tool",
  ],
  positionals: { min: 0, max: 64 },
  async run(ctx) {
    const { type, limit, model: modelOnly } = ctx.options;
    const tags = ctx.options.tag.map(normaliseTag).filter((t) => t !== "");
    const query = ctx.args.join(" ");
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const result = searchSkills(searchIndexOf(loaded.registry), {
      query,
      tags,
      limit,
      filter: (c) => (type === undefined || c.skill.type === type) && (!modelOnly || modelMayUse(c)),
    });
    const rows = result.hits.map(({ candidate }) => ({
      ...foundSkill(candidate),
      ...(candidate.skill.modelInvocable === false && { modelInvocable: false }),
    }));
    if (ctx.json) {
      json(ctx, { query, total: result.total, skills: rows });
      return rows.length > 0 ? EXIT_OK : EXIT_FAILURE;
    }
    if (rows.length === 0) {
      ctx.err(query.trim() === "" ? "no skills match\n" : `no skill matches "${visibleLine(query)}"\n`);
      return EXIT_FAILURE;
    }
    const table = [
      ["NAME", "TYPE", "LAYER", "TAGS", "DESCRIPTION"],
      ...rows.map((r) => [r.name, r.type, r.layer, r.tags.join(","), r.description]),
    ];
    ctx.out(
      formatTable(table, { ...(ctx.columns !== undefined && { maxWidth: ctx.columns }), header: ctx.colours.bold }),
    );
    if (result.total > rows.length) ctx.err(`${rows.length} of ${result.total} matches shown (--limit to see more)\n`);
    return EXIT_OK;
  },
});
