/**
 * `skill-central eval`: does each skill fire when it should? Offline and deterministic routing
 * (src/registry/routing.ts): every skill's trigger set ranked with the server's own search over
 * the whole served catalog, recall@1/@3, false fires and who won instead. It is a proxy for a
 * model's choice, and says so; runs against a model come later (docs/eval.md).
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { formatTable } from "../cli-output/table.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { DEFAULT_CATALOG_SETTINGS } from "../config/catalog-settings.ts";
import { type EvalSettings, evalWorkspace } from "../config/eval-settings.ts";
import type { Candidate } from "../registry/registry.ts";
import { NO_WINNER, routeTriggerSets, type RoutingQuery, type SkillRouting } from "../registry/routing.ts";
import { searchIndexOf } from "../registry/search.ts";
import { evalPathsOf, readTriggerSet } from "../storage/eval-files.ts";
import { describeFsError } from "../storage/fs-errors.ts";
import { perPlan, plansText, reachOf } from "./support/routing-reach.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, reportLoad } from "./support/command.ts";
import { flag, text, UsageError, value } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

const PROXY_NOTE =
  "routing proxy: each query ranked by the server's own search (find_skills), not by a model; see docs/eval.md";

function share(raw: string, flag: string): number {
  const n = Number(raw);
  if (raw.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  throw new UsageError(`${flag} must be a share from 0 to 1, not "${raw}"`);
}

const percent = (r: number | null) => (r === null ? "-" : `${Math.round(r * 100)}%`);

/** `iteration-N` after the highest already in the workspace: a run never overwrites an earlier one. */
function nextIteration(workspace: string): string {
  mkdirSync(workspace, { recursive: true });
  let highest = 0;
  for (const name of readdirSync(workspace)) {
    const m = /^iteration-(\d+)$/.exec(name);
    if (m) highest = Math.max(highest, Number(m[1]));
  }
  const dir = join(workspace, `iteration-${highest + 1}`);
  mkdirSync(dir);
  return dir;
}

function wonInstead(r: SkillRouting): string {
  return Object.entries(r.wonInstead)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([winner, n]) => `${winner} ×${n}`)
    .join(", ");
}

function textReport(results: readonly SkillRouting[], columns: number | undefined, bold: (s: string) => string) {
  const table = [
    ["SKILL", "SHOULD", "SHOULD NOT", "RECALL@1", "RECALL@3", "FALSE FIRES", "WON INSTEAD"],
    ...results.map((r) => [
      r.reachable ? r.skill : `${r.skill} (not reachable)`,
      String(r.positives),
      String(r.negatives),
      percent(r.recallAt1),
      percent(r.recallAt3),
      String(r.falseFires),
      wonInstead(r),
    ]),
  ];
  const misses = results.flatMap((r) =>
    r.queries
      .filter((q) => (q.should_trigger ? q.rank !== 1 : q.rank === 1))
      .map((q) =>
        q.should_trigger
          ? `  ${r.skill} missed "${visibleLine(q.query)}": ${q.winner ?? NO_WINNER} first${q.rank === null ? "" : `, ${r.skill} ${q.rank}`}\n`
          : `  ${r.skill} fired on "${visibleLine(q.query)}" (should not)\n`,
      ),
  );
  return (
    formatTable(table, { ...(columns !== undefined && { maxWidth: columns }), header: bold }) +
    (misses.length > 0 ? `\n${misses.join("")}` : "")
  );
}

/** Each served skill's trigger set (only the `named`, when any; all from `given`, when given), and what is wrong with them. */
function triggerSetsOf(
  served: readonly Candidate[],
  named: ReadonlySet<string>,
  given: string | undefined,
): { sets: Map<string, readonly RoutingQuery[]>; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const sets = new Map<string, readonly RoutingQuery[]>();
  for (const c of served) {
    if (named.size > 0 && !named.has(c.skill.id)) continue;
    const path = given ?? evalPathsOf(c.path).triggers;
    const read = readTriggerSet(path);
    if (read === undefined) {
      if (given !== undefined)
        problems.push({ severity: "error", code: "eval-missing", file: path, message: "no such file" });
      continue;
    }
    for (const d of read.diagnostics) problems.push(d);
    if (read.value) sets.set(c.skill.id, read.value);
  }
  return { sets, problems };
}

/** Where the results are written: --workspace, else the config's eval.workspace; nowhere without either. */
function workspaceOf(option: string | undefined, cwd: string, settings: EvalSettings | undefined): string | undefined {
  if (option !== undefined) return resolve(cwd, option);
  const configured = evalWorkspace(settings, cwd);
  return configured.configured ? configured.dir : undefined;
}

/** `report` as `workspace/iteration-N/routing.json`; false (said on stderr) when it cannot be written. */
function writeReport(
  ctx: { err(text: string): void },
  workspace: string,
  report: object,
  display: (path: string) => string,
): boolean {
  try {
    const file = join(nextIteration(workspace), "routing.json");
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`, { flag: "wx" });
    ctx.err(`wrote ${visibleLine(display(file))}\n`);
    return true;
  } catch (error) {
    ctx.err(`cannot write the results to ${visibleLine(display(workspace))}: ${describeFsError(error)}\n`);
    return false;
  }
}

export const spec = command({
  name: "eval",
  summary: "Check that each skill's trigger queries pick it (routing proxy, offline)",
  usage:
    "eval [<skill>…] [--routing] [--client <name> | --every-client] [--trigger-set <path>] [--min-recall <share>] [--workspace <dir>] [--json]",
  description:
    "Ranks each skill's trigger queries (evals/eval_set.json in a skill folder, <name>.eval_set.json beside a\n" +
    "skill file: {query, should_trigger} items) against every skill a model may use, with the server's own\n" +
    "search (find_skills; --client: what that client's plan lets a model reach). Reports per skill recall@1 and @3 over the should-trigger queries, false fires\n" +
    "(a should-not query it ranks first) and which skill won instead. A proxy for a model's choice, not the\n" +
    "choice: see docs/eval.md. Exit 1 when a skill's recall@1 is under --min-recall, a trigger set is\n" +
    "invalid, or no skill has one; 2 on a usage error.",
  options: {
    routing: flag("Rank trigger queries with the server's search (the default, and for now the only mode)"),
    "trigger-set": text(
      "<path>",
      "Use this trigger set (a JSON array of {query, should_trigger}) for the one skill named",
    ),
    "min-recall": value("<share>", "Fail (exit 1) when a skill's recall@1 is under this, 0 to 1", share),
    client: text(
      "<name>",
      "Rank over what this client (its clientInfo.name) can pick from under its plan: without the catalog tools, only the skills listed to it as tools (a host taking the skills extension reaches every prompt skill too: see docs/eval.md)",
    ),
    "every-client": flag(
      "Also rank over what each known client's plan lets a model reach, and summarise per plan (clients with the same reach share a row)",
    ),
    workspace: text(
      "<dir>",
      "Also write the results to <dir>/iteration-N/routing.json (N one past the highest); default: the config's eval.workspace, when set",
    ),
  },
  examples: [
    "skill-central eval",
    "skill-central eval --min-recall 0.8 --json",
    "skill-central eval review-pr --trigger-set review-pr.eval_set.json",
    "skill-central eval --workspace eval-workspace",
    "skill-central eval --client claude-code",
    "skill-central eval --every-client",
  ],
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  async run(ctx) {
    const triggerSet = ctx.options["trigger-set"];
    if (triggerSet !== undefined && ctx.args.length !== 1)
      throw new UsageError(
        "--trigger-set needs exactly one skill named: skill-central eval <skill> --trigger-set <path>",
      );
    if (ctx.options.client !== undefined && ctx.options["every-client"])
      throw new UsageError("--client and --every-client cannot be combined: one client, or every known one");
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const served = loaded.registry.served();
    const named = new Set(ctx.args);
    const unknown = [...named].filter((id) => !served.some((c) => c.skill.id === id));
    if (unknown.length > 0) {
      ctx.err(`no served skill named ${unknown.map((id) => `"${visibleLine(id)}"`).join(", ")}\n`);
      return EXIT_FAILURE;
    }
    const { sets, problems } = triggerSetsOf(
      served,
      named,
      triggerSet === undefined ? undefined : resolve(ctx.cwd, triggerSet),
    );
    for (const d of problems)
      ctx.err(`${colourDiagnostic(formatDiagnostic(d, { display: loaded.display }), ctx.colours)}\n`);
    const reach = reachOf(loaded.registry, loaded.config.catalog ?? DEFAULT_CATALOG_SETTINGS, ctx.options.client);
    const results = routeTriggerSets(searchIndexOf(loaded.registry), sets, reach.filter);
    const plans = ctx.options["every-client"]
      ? perPlan(loaded.registry, loaded.config.catalog ?? DEFAULT_CATALOG_SETTINGS, sets)
      : undefined;
    const minRecall = ctx.options["min-recall"];
    const under = minRecall === undefined ? [] : results.filter((r) => (r.recallAt1 ?? 1) < minRecall);
    const report = {
      mode: "routing",
      note: PROXY_NOTE,
      ...(reach.client !== undefined && { client: reach.client }),
      catalog: served.filter(reach.filter).length,
      ...(minRecall !== undefined && { minRecall }),
      skills: results,
      ...(plans !== undefined && { plans }),
      ...(under.length > 0 && { underMinRecall: under.map((r) => r.skill) }),
      problems: problems.map((d) => ({ ...d, ...(d.file && { file: loaded.display(d.file) }) })),
    };
    const workspace = workspaceOf(ctx.options.workspace, ctx.cwd, loaded.config.eval);
    if (workspace !== undefined && !writeReport(ctx, workspace, report, loaded.display)) return EXIT_FAILURE;
    if (ctx.json) json(ctx, report);
    else if (results.length > 0) {
      ctx.err(`${PROXY_NOTE}\n`);
      ctx.out(textReport(results, ctx.columns, ctx.colours.bold));
      if (plans !== undefined) ctx.out(`\n${plansText(plans, ctx.columns, ctx.colours.bold)}`);
    }
    if (results.length === 0) {
      if (problems.length === 0)
        ctx.err(
          "no skill has a trigger set: add evals/eval_set.json to a skill folder, or <name>.eval_set.json beside a skill file (docs/eval.md)\n",
        );
      return EXIT_FAILURE;
    }
    if (!ctx.json)
      ctx.err(
        `${plural(results.length, "skill")}, ${plural(
          results.reduce((n, r) => n + r.queries.length, 0),
          "query",
          "queries",
        )}, over ${plural(report.catalog, "reachable skill")}\n`,
      );
    for (const r of under)
      ctx.err(`${r.skill}: recall@1 ${percent(r.recallAt1)} is under --min-recall ${percent(minRecall ?? 0)}\n`);
    return problems.length > 0 || under.length > 0 ? EXIT_FAILURE : EXIT_OK;
  },
});
