import { formatTable } from "../cli-output/table.ts";
import { modelMayUse } from "../invoke/load-skill.ts";
import { foundSkill, searchIndexOf, searchSkills } from "../registry/search.ts";
import { normaliseTag } from "../skill/tags.ts";
import { didYouMean } from "../suggest.ts";
import { EXIT_FAILURE, EXIT_OK, json, load, reportLoad, stringOption, stringsOption, UsageError, type CommandSpec } from "./support/command.ts";

const DEFAULT_LIMIT = 20;

export const spec: CommandSpec = {
  name: "find",
  summary: "Search the served skills, as the find_skills tool does",
  usage: "find [<query>…] [--tag <tag>]… [--type prompt|tool] [--limit <n>] [--model] [--json]",
  description:
    "Ranks the served skills by how well their name, title, tags, description and headings match the query\n" +
    "(the same search as the find_skills catalog tool; see docs/catalog.md). Without a query, lists them by id.\n" +
    "Exits 1 when nothing matches. --model shows only what a model may use (not disable-model-invocation skills).",
  options: { tag: { type: "string", multiple: true }, type: { type: "string" }, limit: { type: "string" }, model: { type: "boolean" } },
  optionHelp: [
    ["--tag <tag>", "Only skills carrying this tag (repeatable: every one)"],
    ["--type prompt|tool", "Only prompts, or only tools"],
    ["--limit <n>", `At most this many results (default ${DEFAULT_LIMIT})`],
    ["--model", "Only skills a model may use, as find_skills returns them"],
  ],
  examples: ["skill-central find review a pull request", 'skill-central find "k8s manifests" --json', "skill-central find --tag security --type tool"],
  positionals: { min: 0, max: 64 },
  async run(ctx) {
    const type = stringOption(ctx, "type");
    if (type !== undefined && type !== "prompt" && type !== "tool") {
      throw new UsageError(`--type must be "prompt" or "tool", not "${type}"${didYouMean(type, ["prompt", "tool"])}`);
    }
    const rawLimit = stringOption(ctx, "limit");
    const limit = rawLimit === undefined ? DEFAULT_LIMIT : Number(rawLimit);
    if (rawLimit !== undefined && (!/^\d+$/.test(rawLimit) || !Number.isSafeInteger(limit) || limit < 1)) {
      throw new UsageError(`--limit must be a positive whole number, not "${rawLimit}"`);
    }
    const tags = stringsOption(ctx, "tag").map(normaliseTag).filter((t) => t !== "");
    const query = ctx.args.join(" ");
    const modelOnly = ctx.options.model === true;
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
      ctx.err(query.trim() === "" ? "no skills match\n" : `no skill matches "${query}"\n`);
      return EXIT_FAILURE;
    }
    const table = [["NAME", "TYPE", "LAYER", "TAGS", "DESCRIPTION"], ...rows.map((r) => [r.name, r.type, r.layer, r.tags.join(","), r.description])];
    ctx.out(formatTable(table, { ...(ctx.columns !== undefined && { maxWidth: ctx.columns }), header: ctx.colours.bold }));
    if (result.total > rows.length) ctx.err(`${rows.length} of ${result.total} matches shown (--limit to see more)\n`);
    return EXIT_OK;
  },
};
