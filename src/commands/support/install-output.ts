/** Shared by `install`, `uninstall` and `doctor`: reading their arguments and showing plans. */
import type { Palette } from "../../cli-output/colour.ts";
import { didYouMean } from "../../suggest.ts";
import { formatTable } from "../../cli-output/table.ts";
import { CLIENT_IDS, type ClientId } from "../../install/clients/client.ts";
import { SCOPES } from "../../install/entry.ts";
import type { Outcome } from "../../install/apply.ts";
import type { Plan } from "../../install/plan.ts";
import { hostFromEnv } from "../../install/host.ts";
import { currentLaunch } from "../../install/launch.ts";
import { clientStatuses, type ClientStatus } from "../../install/status.ts";
import { UsageError } from "./command.ts";
import { choice } from "./options.ts";
import { visibleLine, visibleText } from "../../visible-text.ts";

export function clientIds(names: readonly string[]): ClientId[] {
  const ids: ClientId[] = [];
  for (const name of names) {
    if (!(CLIENT_IDS as readonly string[]).includes(name)) {
      throw new UsageError(
        `unknown client "${name}"${didYouMean(name, CLIENT_IDS) || ` (known: ${CLIENT_IDS.join(", ")})`}`,
      );
    }
    if (!ids.includes(name as ClientId)) ids.push(name as ClientId);
  }
  return ids;
}

/** `--scope`, whose help line differs between install and uninstall. */
export function scopeOption(help: string) {
  return choice(SCOPES, help, { default: "user" });
}

/** A diff of an IDE's config file: its lines are the file's, so their controls are shown, never obeyed. */
export function colourDiff(rawDiff: string, colours: Palette): string {
  const diff = visibleText(rawDiff);
  if (!colours.enabled) return diff;
  return diff
    .split("\n")
    .map((line) =>
      line.startsWith("+++") || line.startsWith("---")
        ? colours.bold(line)
        : line.startsWith("@@")
          ? colours.cyan(line)
          : line.startsWith("+")
            ? colours.green(line)
            : line.startsWith("-")
              ? colours.red(line)
              : line,
    )
    .join("\n");
}

/** `claude mcp add …` as one shell line (quoted where needed), for the plan. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ");
}

const VERB: Partial<Record<Plan["action"], string>> = {
  create: "create",
  add: "add to",
  update: "replace the entry in",
  remove: "remove the entry from",
};

/** A plan as the user reads it before anything is written. */
export function describePlan(plan: Plan, colours: Palette): string {
  const head = colours.bold(plan.client.name);
  // A message may quote the config file (a parse error) and a path may hold anything: shown, never obeyed.
  const shown = visibleLine(plan.shown);
  switch (plan.action) {
    case "error":
      return `${head}: ${colours.red("error")}: ${visibleText(plan.message ?? "")}\n`;
    case "unchanged":
      return `${head}: already installed in ${shown}\n${noteLine(plan, colours)}`;
    case "absent":
      return `${head}: no skill-central entry in ${shown}\n`;
    case "differs":
      return `${head}: ${colours.yellow("differs")}: ${visibleText(plan.message ?? "")}\n${colourDiff(plan.diff, colours)}`;
    default: {
      const via = plan.commands
        ? ` with ${plan.commands.map((argv) => `\`${shellLine(["claude", ...argv.slice(1)])}\``).join(" then ")}`
        : "";
      return `${head}: ${VERB[plan.action]} ${shown}${visibleLine(via)}\n${colourDiff(plan.diff, colours)}${noteLine(plan, colours)}`;
    }
  }
}

/** A plan's note, on a line of its own. */
function noteLine(plan: Plan, colours: Palette): string {
  return plan.note === undefined ? "" : `${colours.yellow("note")}: ${visibleText(plan.note)}\n`;
}

export function describeOutcome(plan: Plan, outcome: Outcome, colours: Palette): string {
  const head = colours.bold(plan.client.name);
  if (!outcome.ok) return `${head}: ${colours.red("error")}: ${visibleText(outcome.message)}\n`;
  return `${head}: ${colours.green("ok")}: ${visibleText(outcome.message)}${outcome.backup ? `\n  backup: ${visibleLine(outcome.backup)}` : ""}\n`;
}

/** Plans and outcomes as data for `--json`. */
export function planJson(plan: Plan, outcome?: Outcome): Record<string, unknown> {
  return {
    client: plan.client.id,
    scope: plan.ctx.scope,
    file: plan.path || null,
    action: plan.action,
    ...(plan.message && { message: plan.message }),
    ...(plan.note && { note: plan.note }),
    diff: plan.diff,
    ...(plan.commands && { commands: plan.commands.map((argv) => ["claude", ...argv.slice(1)]) }),
    ...(outcome && {
      result: { ok: outcome.ok, message: outcome.message, ...(outcome.backup && { backup: outcome.backup }) },
    }),
  };
}

const STATE_TEXT: Record<string, string> = {
  none: "no entry",
  current: "installed",
  "this-install": "installed",
  other: "other",
  http: "HTTP entry",
  broken: "cannot read",
};

/** For `doctor`: every client on this machine and its skill-central entry, if any. */
export function clientReport(project: string): Promise<ClientStatus[]> {
  const host = hostFromEnv();
  return clientStatuses(host, project, currentLaunch(host));
}

/** The `doctor` section: one line per client and config file. */
export function formatClientStatuses(statuses: readonly ClientStatus[], colours: Palette): string {
  const rows: string[][] = [["CLIENT", "FOUND", "FILE", "ENTRY"]];
  // The ENTRY column's colour per row: painted by the table, after it makes the text visible.
  const paints: ((text: string) => string)[] = [];
  for (const s of statuses) {
    const found = s.detected ? "yes" : "no";
    if (s.entries.length === 0) rows.push([s.name, found, "-", "-"]);
    s.entries.forEach((e, i) => {
      const state = STATE_TEXT[e.state] ?? e.state;
      const paint =
        e.state === "current"
          ? colours.green
          : e.state === "broken" || e.state === "other" || e.state === "this-install"
            ? colours.yellow
            : (t: string) => t;
      paints[rows.length] = paint;
      rows.push([i === 0 ? s.name : "", i === 0 ? found : "", e.file, `${state}${e.detail ? `: ${e.detail}` : ""}`]);
    });
  }
  return `${colours.bold("IDE clients")} ${colours.dim("(skill-central install registers the server; see docs/install-ides.md)")}\n${formatTable(
    rows,
    {
      paint: (row, column) => (column === 3 ? paints[row] : undefined),
    },
  )
    .split("\n")
    .map((line) => (line === "" ? "" : `  ${line}`))
    .join("\n")}`;
}
