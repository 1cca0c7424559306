/** `skill-central sync`: git and url layers fetched and their copies made to match `skill-central.lock` (or moved on with `--update`). */
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { colourDiagnostic, palette, type Palette } from "../cli-output/colour.ts";
import { displayPath } from "../storage/display-path.ts";
import { visibleLine } from "../visible-text.ts";
import { gitVersion } from "../sources/git.ts";
import type { SkillChange, SkillChanges } from "../sources/skill-changes.ts";
import {
  syncLayers,
  SyncRefused,
  type LayerSyncReport,
  type SyncMode,
  type SyncProgress,
  type SyncReport,
} from "../sources/sync.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, UsageError, type CommandContext } from "./support/command.ts";
import { flag } from "./support/options.ts";

/** Changes listed per kind before the rest is counted. */
const MAX_LISTED = 20;

function short(commit: string | undefined): string {
  return commit ? commit.slice(0, 12) : "?";
}

/** `shown` makes a problem's text (git's words, a URL) fit for the terminal; the progress line does it for the whole line. */
function headline(layer: LayerSyncReport, colours: Palette, shown: (text: string) => string = (t) => t): string {
  const { green, yellow, red, dim } = colours;
  switch (layer.outcome) {
    case "unchanged":
      return `up to date at ${short(layer.after)}`;
    case "locked":
      return (
        green(`locked at ${short(layer.after)}`) +
        (layer.before && layer.before !== layer.after ? dim(` (was ${short(layer.before)})`) : "")
      );
    case "updated":
      return green(`${short(layer.before)} → ${short(layer.after)}`);
    case "restored":
      return green(`copy of ${short(layer.after)} restored`);
    case "fetched":
      return green(`fetched ${short(layer.after)}`);
    case "out-of-date":
      return yellow(`out of date: ${shown(layer.problem ?? "")}`);
    case "failed":
      return red(`failed: ${shown(layer.problem ?? "")}`);
  }
}

function step(event: SyncProgress): string {
  switch (event.phase) {
    case "verifying":
      return `checking the local copy of ${short(event.commit)}`;
    case "fetching":
      return `fetching ${event.commit ? short(event.commit) : event.ref} from ${event.url}`;
    case "copying":
      return `writing and verifying the copy of ${short(event.commit)}`;
    case "asking":
      return `asking ${event.url} whether ${event.ref} moved`;
    case "done":
      return `done: ${headline(event.report, palette(false))}`;
  }
}

/**
 * A fetch from a slow remote takes tens of seconds: on a terminal, stderr shows one line per
 * layer, rewritten in place as each step starts and left as "done: …" when the layer is. Not on
 * a terminal (a script, CI, a log file), nothing is drawn: the report on stdout says it all.
 * Anything else written to stderr meanwhile first clears the line being drawn.
 */
class ProgressLine {
  private drawn = false;
  constructor(private readonly ctx: CommandContext) {}

  get enabled(): boolean {
    return this.ctx.errTerminal !== undefined;
  }

  show(event: SyncProgress): void {
    const columns = this.ctx.errTerminal?.columns;
    if (columns === undefined) return;
    // Layer names, URLs and refs come from the config, a problem from git: shown, never obeyed.
    let text = visibleLine(`[${event.index}/${event.total}] ${event.layer}: ${step(event)}`);
    // A line longer than the terminal wraps, and \r would then redraw only its last part.
    if (text.length > columns - 1) text = `${text.slice(0, Math.max(0, columns - 2))}…`;
    const done = event.phase === "done";
    this.ctx.err(`\r\x1b[2K${text}${done ? "\n" : ""}`);
    this.drawn = !done;
  }

  clear(): void {
    if (!this.drawn) return;
    this.ctx.err("\r\x1b[2K");
    this.drawn = false;
  }

  /** A line of its own on stderr, below nothing half-drawn. */
  line(text: string): void {
    this.clear();
    this.ctx.err(text);
  }
}

function changeLines(changes: SkillChanges | undefined, ctx: CommandContext): string {
  if (!changes) return "";
  const { green, red, yellow } = ctx.colours;
  const kinds: [SkillChange[], string, (s: string) => string][] = [
    [changes.added, "+", green],
    [changes.changed, "~", yellow],
    [changes.removed, "-", red],
  ];
  let text = "";
  for (const [list, sign, colour] of kinds) {
    for (const change of list.slice(0, MAX_LISTED))
      text += `  ${colour(sign)} ${visibleLine(change.id)}  ${ctx.colours.dim(visibleLine(change.file))}\n`;
    if (list.length > MAX_LISTED) text += `  ${colour(sign)} … and ${list.length - MAX_LISTED} more\n`;
  }
  return text;
}

function formatReport(report: SyncReport, ctx: CommandContext): string {
  const { bold, yellow, red } = ctx.colours;
  if (report.layers.length === 0 && !report.lockfile?.stale.length) {
    return "No git or url layers in the config (a layer with `git: <url>` or `url: <index>`; see docs/git-layers.md, docs/well-known.md).\n";
  }
  let text = "";
  for (const layer of report.layers) {
    const where = [layer.ref === "HEAD" ? "" : layer.ref, layer.path ? `${layer.path}/` : ""]
      .filter(Boolean)
      .join(", ");
    text += `${bold(visibleLine(layer.name))}  ${visibleLine(`${layer.url}${where ? ` ${where}` : ""}`)}${layer.locked ? "" : ctx.colours.dim(" (not locked: follows its ref)")}\n`;
    text += `  ${headline(layer, ctx.colours, visibleLine)}\n`;
    if (layer.signer && layer.outcome !== "failed")
      text += `  signed by ${visibleLine(layer.signer.principal)} (${layer.signer.fingerprint})\n`;
    text += changeLines(layer.changes, ctx);
    for (const note of layer.notes) text += `  ${yellow("note")}: ${visibleLine(note)}\n`;
  }
  const lock = report.lockfile;
  if (lock) {
    const name = displayPath(lock.file, { cwd: ctx.cwd });
    if (lock.written) text += `\n${name} written\n`;
    if (lock.stale.length > 0) {
      text += lock.written
        ? `  removed entries of layers no longer declared: ${visibleLine(lock.stale.join(", "))}\n`
        : `${red(name)}: entries for layers no longer declared: ${visibleLine(lock.stale.join(", "))}; run skill-central sync\n`;
    }
  }
  return text;
}

export const spec = command({
  name: "sync",
  summary: "Fetch git and url layers and make their local copies match skill-central.lock",
  usage: "sync [--update [layer]] [--allow-downgrade] [--check] [--frozen] [--json]",
  description:
    "Makes each git layer's local copy match the lock: a locked layer gets its locked commit (fetched only\n" +
    "when missing from the cache), a project layer not locked yet is fetched at its ref and written to\n" +
    "skill-central.lock, a user layer moves to its ref's current commit. Prints what changed per layer\n" +
    "(old → new commit; skills added, changed, removed). Exit 1 when a layer fails. On a terminal,\n" +
    "stderr shows one progress line per layer while it works (fetching, verifying, done).\n\n" +
    "--update moves one layer (or all) to its ref's current commit and rewrites the lock. A commit older\n" +
    "than the one served (an ancestor of it), or a signed index published before it, is refused unless\n" +
    "--allow-downgrade is given. A layer with `signers` prints who signed what it serves.\n" +
    "--check fetches and writes nothing: exit 1 when the lock does not match the config, or a copy is\n" +
    "missing or damaged (a pre-commit hook). --frozen syncs without ever writing the lock: exit 1 when\n" +
    "the lock is out of date (CI).\n\n" +
    "Layers with `url` (an Agent Skills well-known index) are synced the same way: each artifact's digest\n" +
    "is verified before anything is written (docs/well-known.md).",
  options: {
    update: flag("Move a layer (default: all) to its ref's current commit and rewrite the lock", { value: "[layer]" }),
    check: flag("Change nothing; exit 1 when a copy or the lock is out of date"),
    frozen: flag("Sync, but never write the lock; exit 1 when it would change (CI)"),
    "allow-downgrade": flag("Take an older commit or signed index than the one served (a deliberate rollback)"),
  },
  examples: [
    "skill-central sync",
    "skill-central sync --update team",
    "skill-central sync --check",
    "skill-central sync --frozen --json",
  ],
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const { update, check, frozen } = ctx.options;
    if ([update, check, frozen].filter(Boolean).length > 1)
      throw new UsageError("--update, --check and --frozen cannot be combined");
    if (ctx.args.length > 0 && !update)
      throw new UsageError(`a layer name is taken only with --update (skill-central sync --update ${ctx.args[0]})`);
    const mode: SyncMode = update ? "update" : check ? "check" : frozen ? "frozen" : "sync";
    const allowDowngrade = ctx.options["allow-downgrade"] === true;
    if (allowDowngrade && (check || frozen))
      throw new UsageError("--allow-downgrade goes with sync or sync --update, not --check or --frozen");

    const display = (file: string) => displayPath(file, { cwd: ctx.cwd });
    const line = new ProgressLine(ctx);
    const warn = (d: Diagnostic) => line.line(`${colourDiagnostic(formatDiagnostic(d, { display }), ctx.colours)}\n`);
    let report: SyncReport;
    try {
      report = await syncLayers(
        {
          cwd: ctx.cwd,
          mode,
          ...(ctx.args[0] !== undefined && { layer: ctx.args[0] }),
          ...(allowDowngrade && { allowDowngrade }),
          note: (message) => line.line(`${visibleLine(message)}\n`),
          ...(line.enabled && { progress: (event: SyncProgress) => line.show(event) }),
        },
        warn,
      );
    } catch (error) {
      line.clear();
      if (!(error instanceof SyncRefused)) throw error;
      ctx.err(`error: ${visibleLine(error.message)}\n`);
      return EXIT_FAILURE;
    }
    if (mode !== "check" && report.layers.some((l) => l.outcome === "failed") && (await gitVersion()) === undefined) {
      ctx.err("error: git is not installed (or not on PATH); git layers need it\n");
    }
    if (ctx.json) {
      json(ctx, {
        ...report,
        ...(report.lockfile && {
          lockfile: { ...report.lockfile, file: displayPath(report.lockfile.file, { cwd: ctx.cwd }) },
        }),
      });
    } else {
      ctx.out(formatReport(report, ctx));
    }
    return report.ok ? EXIT_OK : EXIT_FAILURE;
  },
});
