/**
 * `usage`: which skills were used, from the usage history in the store the config names
 * (docs/usage.md; the user's file or a team's database): per skill its uses by outcome, refusals
 * apart, distinct callers, last use, uses per client and per project over a window, and the
 * skills served here now that nobody used in it. The database aggregates; no row is loaded.
 */
import { folderProject } from "../storage/project-identity.ts";
import { storeLocation } from "../storage/store-location.ts";
import { NO_PROJECT, readUsage, type SkillUsage } from "../storage/usage-store.ts";
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
  summary: "Which skills were used: uses, outcomes, callers, clients and projects per skill, and the unused ones",
  usage: "usage [--since 30d] [--skill <id>] [--project <id>|.] [--client <name>] [--json]",
  description:
    "Reads the usage history in the store the config names (docs/usage.md): the user's SQLite\n" +
    "file by default, or a team's PostgreSQL database (`store: postgres://…`), so a lead sees\n" +
    "every replica's and every laptop's uses. Per skill: uses in the window by outcome, calls\n" +
    "refused before they ran (not uses), distinct callers, the last use, uses per client and per\n" +
    "project, and a sparkline; then the skills served here now that nobody used in it. Counted by\n" +
    "the database. `--project .` keeps this project's uses; uses recorded before projects were\n" +
    "have none.",
  options: {
    since: value("<window>", "How far back to look (30d, 12h, 2w; default 30d)", parseWindow, { default: 30 * DAY_MS }),
    skill: text("<id>", "Only this skill"),
    project: text("<id>", "Only this project's uses (`.`: the project it runs in; ids as the report shows them)"),
    client: text("<name>", "Only this client's uses (its clientInfo.name)"),
  },
  examples: [
    "skill-central usage",
    "skill-central usage --since 7d --json",
    "skill-central usage --skill review-pr",
    "skill-central usage --project . --client claude-code",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const settings = loaded.config.usage;
    const now = Date.now();
    const since = now - ctx.options.since;
    const store = settings?.store ?? "off";
    const here = folderProject(ctx.cwd);
    const project = ctx.options.project === "." ? here : ctx.options.project;
    const buckets = Math.min(MAX_SPARK, Math.max(1, Math.round(ctx.options.since / DAY_MS)));
    const { skills, problem } =
      store === "off"
        ? { skills: [], problem: undefined }
        : await readUsage(storeLocation(store, settings?.passwordEnv), {
            since,
            until: now,
            buckets,
            ...(ctx.options.skill !== undefined && { skill: ctx.options.skill }),
            ...(project !== undefined && { project }),
            ...(ctx.options.client !== undefined && { client: ctx.options.client }),
          });
    // A store that cannot be read is not a history of no use: then no skill is called unused.
    if (problem !== undefined) ctx.err(`${visibleLine(problem)}\n`);
    // A refused call is not a use: a skill only ever refused is unused.
    const used = new Set(skills.filter((s) => s.uses > 0).map((s) => s.skill));
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
        thisProject: here,
        ...(project !== undefined && { project }),
        skills: skills.map((s) => ({
          id: s.skill,
          uses: s.uses,
          refused: s.refused,
          outcomes: s.outcomes,
          callers: s.callers,
          lastUsed: new Date(s.lastUsed).toISOString(),
          clients: s.clients,
          projects: s.projects,
        })),
        unused,
        ...(problem !== undefined && { problem }),
      });
      return EXIT_OK;
    }
    if (store === "off") ctx.err("usage recording is off (usage: { store: off }): nothing to show\n");
    // The reason went to stderr; stdout shows no history rather than claim that nothing was used.
    if (problem === undefined)
      ctx.out(renderText(skills, unused, ctx.options.since, here, ctx.colours.bold, ctx.columns));
    return EXIT_OK;
  },
});

/** Uses by outcome, refusals apart (their own column): `ok 40, error 2`. */
function outcomeText(outcomes: SkillUsage["outcomes"]): string {
  return (["ok", "error", "declined"] as const)
    .filter((o) => (outcomes[o] ?? 0) > 0)
    .map((o) => `${o} ${outcomes[o]}`)
    .join(", ");
}

/** Counts by name, most first: `claude-code 30, cursor-vscode 12`; this project's identity as `this project`. */
function countsText(counts: Record<string, number>, here?: string): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(
      ([name, n]) => `${name === here ? "this project" : name === NO_PROJECT ? "(none: before projects)" : name} ${n}`,
    )
    .join(", ");
}

function renderText(
  skills: readonly SkillUsage[],
  unused: readonly string[],
  windowMs: number,
  here: string,
  bold: (s: string) => string,
  columns: number | undefined,
): string {
  const window = windowMs % DAY_MS === 0 ? `${windowMs / DAY_MS} days` : `${Math.round(windowMs / 3_600_000)} hours`;
  let out = "";
  if (skills.length === 0) out += `no uses recorded in the last ${window}\n`;
  else {
    const rows = [
      [
        "SKILL",
        "USES",
        "OUTCOMES",
        "REFUSED",
        "CALLERS",
        "LAST USED",
        "CLIENTS",
        "PROJECTS",
        `LAST ${window.toUpperCase()}`,
      ],
    ];
    for (const s of skills)
      rows.push([
        visibleLine(s.skill),
        String(s.uses),
        outcomeText(s.outcomes),
        String(s.refused),
        String(s.callers),
        new Date(s.lastUsed).toISOString().replace("T", " ").slice(0, 16),
        visibleLine(countsText(s.clients)),
        visibleLine(countsText(s.projects, here)),
        sparkline(s.buckets),
      ]);
    out += formatTable(rows, { ...(columns !== undefined && { maxWidth: columns }), header: bold });
  }
  if (unused.length > 0)
    out += `\n${bold(`unused in the last ${window} (${unused.length}):`)} ${visibleLine(unused.join(", "))}\n`;
  return out;
}
