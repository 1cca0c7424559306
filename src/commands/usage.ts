/**
 * `usage`: which skills were used, from the usage history every server process of this user
 * records (docs/usage.md): per skill its uses, last use and uses per client over a window, and
 * the skills served here now that nobody used in it.
 */
import { readUsage, type SkillUsage } from "../storage/usage-store.ts";
import { formatTable } from "../cli-output/table.ts";
import { visibleLine } from "../visible-text.ts";
import { command, EXIT_OK, json, load, reportLoad, UsageError } from "./support/command.ts";
import { text, value } from "./support/options.ts";

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };
/** Columns of a sparkline: one per day up to a month, fewer for longer windows. */
const MAX_SPARK = 30;
const SPARKS = "▁▂▃▄▅▆▇█";

/** `30d`, `12h`, `2w` → milliseconds. */
export function parseWindow(raw: string, flag: string): number {
  const match = /^\s*(\d+)\s*([hdw])\s*$/.exec(raw);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : 0;
  if (ms <= 0) throw new UsageError(`${flag} must be a window like 30d, 12h or 2w, not "${raw}"`);
  return ms;
}

/** One character per bucket, scaled to the busiest; a bucket with no use is a space-like low bar. */
export function sparkline(buckets: readonly number[]): string {
  const top = buckets.reduce((most, n) => Math.max(most, n), 0);
  if (top === 0) return SPARKS[0]!.repeat(buckets.length);
  return buckets
    .map((n) => (n === 0 ? " " : SPARKS[Math.min(SPARKS.length - 1, Math.ceil((n / top) * SPARKS.length) - 1)]))
    .join("");
}

export const spec = command({
  name: "usage",
  summary: "Which skills were used: uses, last use and clients per skill, and the unused ones",
  usage: "usage [--since 30d] [--skill <id>] [--json]",
  description:
    "Reads the usage history that every server process of this user records (docs/usage.md;\n" +
    "`usage: { store: off }` turns recording off). Per skill: uses in the window, the last use,\n" +
    "uses per client and a sparkline over the window; then the skills served here now that\n" +
    "nobody used in it.",
  options: {
    since: value("<window>", "How far back to look (30d, 12h, 2w; default 30d)", parseWindow, { default: 30 * DAY_MS }),
    skill: text("<id>", "Only this skill"),
  },
  examples: ["skill-central usage", "skill-central usage --since 7d --json", "skill-central usage --skill review-pr"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const settings = loaded.config.usage;
    const now = Date.now();
    const since = now - ctx.options.since;
    const store = settings?.store ?? "off";
    const buckets = Math.min(MAX_SPARK, Math.max(1, Math.round(ctx.options.since / DAY_MS)));
    const { skills, problem } =
      store === "off"
        ? { skills: [], problem: undefined }
        : readUsage(store, { since, until: now, buckets, ...skillFilter(ctx.options.skill) });
    // A store that cannot be read is not a history of no use: then no skill is called unused.
    if (problem !== undefined) ctx.err(`${visibleLine(problem)}\n`);
    const used = new Set(skills.map((s) => s.skill));
    const unused =
      problem !== undefined
        ? []
        : loaded.registry
            .served()
            .map((c) => c.skill.id)
            .filter((id) => !used.has(id) && (ctx.options.skill === undefined || id === ctx.options.skill));
    if (ctx.json) {
      json(ctx, {
        since: new Date(since).toISOString(),
        skills: skills.map((s) => ({
          id: s.skill,
          uses: s.uses,
          lastUsed: new Date(s.lastUsed).toISOString(),
          clients: s.clients,
        })),
        unused,
        ...(problem !== undefined && { problem }),
      });
      return EXIT_OK;
    }
    if (store === "off") ctx.err("usage recording is off (usage: { store: off }): nothing to show\n");
    // The reason went to stderr; stdout shows no history rather than claim that nothing was used.
    if (problem === undefined) ctx.out(renderText(skills, unused, ctx.options.since, ctx.colours.bold, ctx.columns));
    return EXIT_OK;
  },
});

function skillFilter(skill: string | undefined): { skill?: string } {
  return skill === undefined ? {} : { skill };
}

function renderText(
  skills: readonly SkillUsage[],
  unused: readonly string[],
  windowMs: number,
  bold: (s: string) => string,
  columns: number | undefined,
): string {
  const window = windowMs % DAY_MS === 0 ? `${windowMs / DAY_MS} days` : `${Math.round(windowMs / 3_600_000)} hours`;
  let out = "";
  if (skills.length === 0) out += `no uses recorded in the last ${window}\n`;
  else {
    const rows = [["SKILL", "USES", "LAST USED", "CLIENTS", `LAST ${window.toUpperCase()}`]];
    for (const s of skills)
      rows.push([
        s.skill,
        String(s.uses),
        new Date(s.lastUsed).toISOString().replace("T", " ").slice(0, 16),
        Object.entries(s.clients)
          .sort((a, b) => b[1] - a[1])
          .map(([client, n]) => `${client} ${n}`)
          .join(", "),
        sparkline(s.buckets),
      ]);
    out += formatTable(rows, { ...(columns !== undefined && { maxWidth: columns }), header: bold });
  }
  if (unused.length > 0)
    out += `\n${bold(`unused in the last ${window} (${unused.length}):`)} ${visibleLine(unused.join(", "))}\n`;
  return out;
}
