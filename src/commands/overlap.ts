/**
 * `skill-central overlap`: pairs of served skills a model could mistake for each other, scored
 * by src/registry/overlap.ts, highest first. The same score makes `validate` warn
 * (`competing-skills`) at or above the documented threshold.
 */
import { COMPETING_THRESHOLD, findOverlap, overlapInput } from "../registry/overlap.ts";
import { PER_SKILL } from "../registry/overlap-search.ts";
import { command, EXIT_OK, json, load, plural, reportLoad } from "./support/command.ts";
import { UsageError, value } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

function score(raw: string, flag: string): number {
  const n = Number(raw);
  if (raw.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  throw new UsageError(`${flag} must be a score from 0 to 1, not "${raw}"`);
}

export const spec = command({
  name: "overlap",
  summary: "List pairs of skills likely to compete for the same request",
  usage: "overlap [--min <score>] [--json]",
  description:
    "Scores every pair of served skills that share a word (stemmed, synonyms such as sql/query/database\n" +
    "folded together) by the cosine of their TF-IDF vectors over name, title, tags and description: 0 shares\n" +
    `nothing, 1 says the same. Lists pairs at or above --min (default ${COMPETING_THRESHOLD}, the score at which validate\n` +
    `warns), highest first: each skill's ${PER_SKILL} strongest, and how many more there are. See docs/catalog.md.`,
  options: {
    min: value("<score>", `Only pairs scoring at least this, 0 to 1 (default ${COMPETING_THRESHOLD})`, score, {
      default: COMPETING_THRESHOLD,
    }),
  },
  examples: ["skill-central overlap", "skill-central overlap --min 0.2 --json"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const found = findOverlap(loaded.registry.served().map(overlapInput), ctx.options.min);
    const { pairs } = found;
    const unlisted = found.total - pairs.length;
    if (ctx.json) {
      json(ctx, { pairs, ...(unlisted > 0 && { unlisted, ...(!found.exact && { unlistedAtLeast: true }) }) });
      return EXIT_OK;
    }
    if (pairs.length === 0) ctx.out(`no pairs of skills score ${ctx.options.min} or more\n`);
    else {
      const shown = pairs.map((p) => ({ score: p.score, a: visibleLine(p.a), b: visibleLine(p.b) }));
      // A loop, not Math.max(...): a spread of this many arguments overflows the stack.
      let width = 0;
      for (const p of shown) width = Math.max(width, p.a.length);
      ctx.out(shown.map((p) => `${p.score.toFixed(3)}  ${p.a.padEnd(width)}  ${p.b}\n`).join(""));
      ctx.err(`${plural(pairs.length, "pair")} at or above ${ctx.options.min}\n`);
      if (unlisted > 0)
        ctx.err(
          found.exact
            ? `${plural(unlisted, "more pair")} at or above ${ctx.options.min} not listed: only each skill's ${PER_SKILL} strongest are\n`
            : `at least ${plural(unlisted, "more pair")} at or above ${ctx.options.min} not listed: only each skill's ${PER_SKILL} strongest are, among the skills its rarest words lead to (too many skills share words to score every pair)\n`,
        );
    }
    return EXIT_OK;
  },
});
