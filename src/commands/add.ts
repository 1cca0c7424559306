/**
 * `skill-central add SOURCE`: one command from a collection's address to a served layer. It reads
 * SOURCE (support/add-source.ts), splices the layer into `skill-central.yaml` without touching the
 * rest of the file (support/layers-edit.ts; a backup first, an atomic write), syncs that layer
 * through the audit gate (src/sources/sync.ts) and reports what arrived with the code the other
 * commands use: the skills, their audit verdicts (`audit`), what the layer adds to each client's
 * catalog cost (`budget`) and the competing pairs it creates (`overlap`). A refused sync puts the
 * config and the lock back as they were: a layer that serves nothing is never left declared.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CATALOG_SETTINGS } from "../config/catalog-settings.ts";
import { PROJECT_CONFIG_NAMES, projectConfigPath } from "../config/config-file.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { backUp, FileProblem, readConfigFile, undo, writeAtomically, type ConfigFile } from "../install/config-file.ts";
import { auditRecords } from "../load/audit-records.ts";
import type { LoadResult } from "../load/load-skills.ts";
import { clientCost } from "../mcp/catalog/budget.ts";
import { knownClientNames } from "../mcp/catalog/client-budgets.ts";
import { COMPETING_THRESHOLD, findOverlap, overlapInput, type OverlapPair } from "../registry/overlap.ts";
import { writeFileAtomically } from "../sources/cache-entry.ts";
import { canonicalUrl, redactUrl } from "../sources/git-url.ts";
import { lockfilePath } from "../sources/lockfile.ts";
import { syncLayers, type LayerSyncReport } from "../sources/sync.ts";
import { displayPath } from "../storage/display-path.ts";
import { visibleLine, visibleText } from "../visible-text.ts";
import { readAddSource, type AddSource } from "./support/add-source.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, type CommandContext } from "./support/command.ts";
import { declaredLayers, LayersEditProblem, withLayer, type DeclaredLayer } from "./support/layers-edit.ts";
import { flag, text, UsageError, wholeNumber } from "./support/options.ts";

/** A new layer's priority: this much above the project's highest, so it wins a shared id (or 50 in an empty file). */
const PRIORITY_STEP = 10;
const FIRST_PRIORITY = 50;

interface Arrived {
  id: string;
  verdict: "pass" | "warn" | "block";
  findings: number;
  /** Another layer serves this id over the new one (a higher priority). */
  shadowedBy?: string;
  /** The layer that served this id before: the new one wins it now. */
  overrides?: string;
}

/** The config entry for `source` with the options given. */
function entryFor(source: AddSource, name: string, priority: number): Record<string, string | number> {
  switch (source.kind) {
    case "path":
      return { name, priority, path: source.path };
    case "well-known":
      return { name, priority, url: source.url };
    case "git":
      return {
        name,
        priority,
        git: source.url,
        ...(source.ref !== undefined && { ref: source.ref }),
        ...(source.path !== undefined && { path: source.path }),
      };
  }
}

/** Two declarations of the same thing: the same repository and folder, index, or folder. */
function sameSource(a: AddSource, layer: DeclaredLayer, configDir: string): boolean {
  if (a.kind === "git" && typeof layer.git === "string")
    return (
      canonicalUrl(a.url) === canonicalUrl(layer.git) &&
      (a.path ?? "").replace(/^\.\/|\/$/g, "") ===
        String((layer as { path?: unknown }).path ?? "").replace(/^\.\/|\/$/g, "")
    );
  if (a.kind === "well-known" && typeof layer.url === "string")
    return a.url.replace(/index\.json$/, "") === layer.url.replace(/index\.json$/, "");
  if (a.kind === "path" && typeof layer.path === "string" && layer.git === undefined && layer.url === undefined)
    return join(configDir, layer.path) === a.dir || layer.path === a.dir;
  return false;
}

function describeSource(source: AddSource): string {
  switch (source.kind) {
    case "path":
      return `the folder ${source.path}`;
    case "well-known":
      return `the well-known index ${redactUrl(source.url)}`;
    case "git":
      return `the git repository ${redactUrl(source.url)}${source.path ? ` (${source.path}/)` : ""}${source.ref ? ` at ${source.ref}` : ""}`;
  }
}

/** Per known client: tokens before and after. */
function costs(before: LoadResult, after: LoadResult) {
  const settings = (l: LoadResult) => l.config.catalog ?? DEFAULT_CATALOG_SETTINGS;
  return knownClientNames().map((name) => {
    const was = clientCost(before.registry, settings(before), name);
    const now = clientCost(after.registry, settings(after), name);
    return {
      client: now.client,
      label: now.label,
      before: was.tokens,
      after: now.tokens,
      added: now.tokens - was.tokens,
      plan: now.plan,
      ...(now.budget && { budget: now.budget.tokens, over: now.over }),
    };
  });
}

/** Pairs at or above the `competing-skills` threshold with one side in the new layer. */
function competing(after: LoadResult, layer: string): OverlapPair[] {
  const served = after.registry.served();
  const mine = new Set(served.filter((c) => c.layer.name === layer).map((c) => c.skill.id));
  if (mine.size === 0) return [];
  return findOverlap(served.map(overlapInput), COMPETING_THRESHOLD).pairs.filter((p) => mine.has(p.a) || mine.has(p.b));
}

/** The layer that served `id` before the new one was added, if any. */
function previous(before: LoadResult, id: string): { overrides: string } | undefined {
  const was = before.registry.get(id);
  return was ? { overrides: was.layer.name } : undefined;
}

function arrived(before: LoadResult, after: LoadResult, layer: string): Arrived[] {
  const records = { config: after.config, records: after.records.filter((r) => r.layer.name === layer) };
  return auditRecords(records, undefined, false, { digests: after.digests }).map((a) => {
    const winner = after.registry.get(a.id);
    return {
      id: a.id,
      verdict: a.verdict,
      findings: a.findings.length,
      ...(winner && winner.layer.name !== layer && { shadowedBy: winner.layer.name }),
      ...(winner?.layer.name === layer && previous(before, a.id)),
    };
  });
}

const n = (value: number) => value.toLocaleString("en-US");

export const spec = command({
  name: "add",
  summary: "Add a layer (a GitHub repo, git URL, well-known index or folder) to skill-central.yaml and sync it",
  usage: "add <source> [--name <name>] [--priority <n>] [--path <dir>] [--ref <ref>] [--dry-run] [--json]",
  description:
    "SOURCE is one of (the first rule that matches wins):\n" +
    "  ./dir ../dir /abs/dir ~/dir        a folder of this machine\n" +
    "  ssh:// git:// file:// user@host:x  a git repository\n" +
    "  https://host/…/.well-known/…       an Agent Skills well-known index (or a URL ending in index.json)\n" +
    "  https://host                       the index that origin serves at /.well-known/agent-skills/\n" +
    "  https://host/any/other/path        a git repository\n" +
    "  owner/repo[/path][@ref]            github.com/owner/repo over https (refused as ambiguous when a\n" +
    "                                     folder of that name exists here: write ./owner/repo or the URL)\n" +
    "  name                               a folder here\n\n" +
    "The layer is appended to skill-central.yaml (created when absent); the rest of the file is kept byte for\n" +
    "byte and a backup is written beside it first. Its name defaults to the repository's (or host's, or\n" +
    `folder's); its priority to ${PRIORITY_STEP} above the file's highest layer (${FIRST_PRIORITY} in an empty file), so it wins a\n` +
    "shared id. A name or source the file already declares is refused. A git or url layer is then synced\n" +
    "through the audit gate and locked; if the gate refuses it (a blocked skill) or the fetch fails, the\n" +
    "config and the lock are put back as they were and the exit status is 1. Reports the skills that arrived,\n" +
    "their audit verdicts, what the layer adds to each client's catalog cost and the competing pairs it\n" +
    "creates. `skill-central remove <name>` undoes it.",
  options: {
    name: text("<name>", "The layer's name (default: from the source)"),
    priority: wholeNumber(0, 1_000_000, "<n>", `The layer's priority (default: ${PRIORITY_STEP} above the highest)`),
    path: text("<dir>", "A folder inside the repository (git layers)"),
    ref: text("<ref>", "A branch, tag or commit (git layers; default: the remote's default branch)"),
    "dry-run": flag("Print the entry that would be written; change nothing"),
  },
  examples: [
    "skill-central add anthropics/skills",
    "skill-central add anthropics/skills/skills@main --name anthropic",
    "skill-central add https://example.com",
    "skill-central add git@github.com:acme/skills.git --ref v2 --path skills",
    "skill-central add ./vendor/skills --priority 20",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const source = withOptions(readAddSource(ctx.args[0]!, ctx.cwd, homedir()), ctx.options);
    const name = ctx.options.name ?? source.name;
    if (name.trim() === "") throw new UsageError("--name must not be empty");
    const plan = planEdit(ctx, source, name, ctx.options.priority);
    if (ctx.options["dry-run"]) {
      const added = insertion(plan.config.text, plan.next);
      if (ctx.json) json(ctx, { dryRun: true, file: plan.shown, layer: plan.entry, text: added });
      else
        ctx.out(
          `${plan.config.exists ? "would add to" : "would create"} ${plan.shown}:\n${visibleText(added.trimEnd())}\n` +
            `${source.kind === "path" ? "" : "then sync it through the audit gate and lock it; "}nothing was changed (--dry-run)\n`,
        );
      return EXIT_OK;
    }
    const before = await load({ ...ctx, json: true });
    const edit = writeEdit(ctx, plan);
    let synced: LayerSyncReport | undefined;
    if (source.kind !== "path") {
      const outcome = await syncNew(ctx, name);
      if (typeof outcome === "string") return edit.rollBack(outcome);
      synced = outcome;
    }
    const after = await load({ ...ctx, json: true });
    const skills = arrived(before, after, name);
    const blocked = skills.filter((s) => s.verdict === "block");
    if (source.kind === "path" && after.config.audit?.layers === "all" && blocked.length > 0)
      return edit.rollBack(
        `the audit gate blocks ${blocked.map((s) => s.id).join(", ")} (skill-central audit shows why)`,
      );
    const result = {
      added: true,
      file: plan.shown,
      ...(edit.backup && { backup: displayPath(edit.backup, { cwd: ctx.cwd }) }),
      layer: plan.entry,
      ...(synced && { commit: synced.after, outcome: synced.outcome }),
      skills,
      cost: costs(before, after),
      competing: competing(after, name),
    };
    if (ctx.json) json(ctx, result);
    else ctx.out(report(ctx, result, synced));
    return EXIT_OK;
  },
});

/** SOURCE with --ref and --path applied (a git repository's only; a clash with the source's own is refused). */
function withOptions(source: AddSource, o: { ref?: string | undefined; path?: string | undefined }): AddSource {
  if (source.kind !== "git") {
    if (o.ref !== undefined || o.path !== undefined)
      throw new UsageError(`--ref and --path go with a git repository, not ${describeSource(source)}`);
    return source;
  }
  if (o.ref !== undefined && source.ref !== undefined && o.ref !== source.ref)
    throw new UsageError(`the source says @${source.ref} and --ref says ${o.ref}: give one`);
  if (o.path !== undefined && source.path !== undefined && o.path !== source.path)
    throw new UsageError(`the source names the folder ${source.path} and --path says ${o.path}: give one`);
  return {
    ...source,
    ...(o.ref !== undefined && { ref: o.ref }),
    ...(o.path !== undefined && { path: o.path.replace(/^\.\/|\/+$/g, "") }),
  };
}

interface EditPlan {
  file: string;
  shown: string;
  config: ConfigFile;
  entry: Record<string, string | number>;
  next: string;
}

/** The project file's new text with the layer, or UsageError saying why it cannot be added. */
function planEdit(ctx: CommandContext, source: AddSource, name: string, given: number | undefined): EditPlan {
  const file = projectConfigPath(ctx.cwd) ?? join(ctx.cwd, PROJECT_CONFIG_NAMES[0]);
  const shown = displayPath(file, { cwd: ctx.cwd });
  const config = readConfigFile(file, shown);
  let declared: DeclaredLayer[];
  try {
    declared = declaredLayers(config.text);
  } catch (error) {
    if (!(error instanceof LayersEditProblem)) throw error;
    throw new UsageError(`${shown}: ${error.message}; fix it first (skill-central validate shows where)`);
  }
  const twin = declared.find((l) => sameSource(source, l, ctx.cwd));
  if (twin) throw new UsageError(`${shown}: layer "${twin.name}" already serves ${describeSource(source)}`);
  if (declared.some((l) => l.name === name))
    throw new UsageError(
      `${shown} already has a layer named "${name}"; choose another with --name, or remove it first (skill-central remove ${name})`,
    );
  const priorities = declared.map((l) => l.priority).filter((p): p is number => typeof p === "number");
  const priority =
    given ?? (priorities.length > 0 ? priorities.reduce((a, b) => Math.max(a, b)) + PRIORITY_STEP : FIRST_PRIORITY);
  const entry = entryFor(source, name, priority);
  try {
    return { file, shown, config, entry, next: withLayer(config.text, entry) };
  } catch (error) {
    if (!(error instanceof LayersEditProblem)) throw error;
    throw new UsageError(`${shown}: ${error.message}; add the layer by hand`);
  }
}

/** Writes the plan (a backup first) and returns how to put the config and the lock back. */
function writeEdit(ctx: CommandContext, plan: EditPlan): { backup?: string; rollBack(why: string): Promise<number> } {
  const { config, shown } = plan;
  const lockFile = lockfilePath(plan.file);
  const lockBefore = existsSync(lockFile) ? readFileSync(lockFile, "utf8") : undefined;
  let backup: string | undefined;
  let written: ReturnType<typeof writeAtomically>;
  try {
    backup = config.exists ? backUp(config) : undefined;
    written = writeAtomically(config, plan.next);
  } catch (error) {
    if (backup) rmSync(backup, { force: true });
    if (error instanceof FileProblem) throw new UsageError(error.message);
    throw error;
  }
  const rollBack = async (why: string): Promise<number> => {
    const undone = undo(config, backup, written);
    if (lockBefore === undefined) rmSync(lockFile, { force: true });
    else await writeFileAtomically(lockFile, lockBefore);
    const state = undone.restored
      ? `${shown} and the lock were put back as they were`
      : `${shown} ${undone.reason}${backup ? `; its backup is ${displayPath(backup, { cwd: ctx.cwd })}` : ""}`;
    ctx.err(`error: layer "${visibleLine(String(plan.entry.name))}" not added: ${visibleLine(why)}\n  ${state}\n`);
    if (ctx.json) json(ctx, { added: false, layer: plan.entry, problem: why });
    return EXIT_FAILURE;
  };
  return { ...(backup && { backup }), rollBack };
}

/** Syncs the new layer alone (the others stay at their locked commits): its report, or why it failed. */
async function syncNew(ctx: CommandContext, name: string): Promise<LayerSyncReport | string> {
  const warn = (d: Diagnostic) =>
    ctx.err(
      `${colourDiagnostic(formatDiagnostic(d, { display: (f) => displayPath(f, { cwd: ctx.cwd }) }), ctx.colours)}\n`,
    );
  let synced: LayerSyncReport | undefined;
  try {
    const report = await syncLayers({ cwd: ctx.cwd, mode: "update", layer: name }, warn);
    synced = report.layers.find((l) => l.name === name);
  } catch (error) {
    // Whatever stopped the sync, the config must not keep a layer that serves nothing.
    return error instanceof Error ? error.message : String(error);
  }
  if (!synced) return "the layer was not synced (is the config valid? see above)";
  if (synced.outcome === "failed" || synced.outcome === "out-of-date") return synced.problem ?? "sync failed";
  return synced;
}

/** What `after` adds to `before` (one insertion): the text between their common prefix and suffix. */
function insertion(before: string, after: string): string {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  // Whole lines: the insertion may begin or end with characters its neighbours share (indentation).
  start = after.lastIndexOf("\n", start - 1) + 1;
  const stop = after.indexOf("\n", Math.max(start, after.length - end - 1));
  return after.slice(start, stop === -1 ? after.length : stop + 1);
}

function report(
  ctx: CommandContext,
  r: {
    file: string;
    backup?: string;
    layer: Record<string, string | number>;
    skills: Arrived[];
    cost: ReturnType<typeof costs>;
    competing: OverlapPair[];
  },
  synced: LayerSyncReport | undefined,
): string {
  const c = ctx.colours;
  const name = visibleLine(String(r.layer.name));
  let out = `${c.green("added")} layer ${c.bold(name)} (priority ${r.layer.priority}) to ${r.file}${r.backup ? c.dim(` (backup: ${r.backup})`) : ""}\n`;
  if (synced?.after) out += `  locked at ${synced.after.slice(0, 12)}\n`;
  for (const note of synced?.notes ?? []) out += `  ${c.yellow("note")}: ${visibleLine(note)}\n`;
  const word = { pass: c.green("pass"), warn: c.yellow("warn"), block: c.red("block") };
  out += `\n${plural(r.skills.length, "skill")} arrived:\n`;
  for (const s of r.skills)
    out += `  ${word[s.verdict]}  ${visibleLine(s.id)}${s.findings > 0 ? c.dim(` (${plural(s.findings, "finding")})`) : ""}${s.shadowedBy ? c.dim(` (not served: layer ${visibleLine(s.shadowedBy)} wins)`) : ""}${s.overrides ? c.yellow(` (now served instead of layer ${visibleLine(s.overrides)}'s)`) : ""}\n`;
  const count = (v: string) => r.skills.filter((s) => s.verdict === v).length;
  if (r.skills.length > 0)
    out += `  audit: ${count("block")} block, ${count("warn")} warn, ${count("pass")} pass (skill-central audit shows the findings)\n`;
  out += "\nCatalog cost per client (tokens, o200k):\n";
  const width = r.cost.reduce((w, k) => Math.max(w, visibleLine(k.label).length), 0);
  for (const k of r.cost) {
    const budget = k.budget !== undefined ? ` of ${n(k.budget)}${k.over ? c.red(" OVER") : ""}` : "";
    out += `  ${visibleLine(k.label).padEnd(width)} +${n(k.added)}  (${n(k.before)} → ${n(k.after)}${budget}; plan: ${k.plan})\n`;
  }
  if (r.competing.length === 0) out += `\nNo competing pairs (overlap ≥ ${COMPETING_THRESHOLD}) with the new skills.\n`;
  else {
    out += `\n${plural(r.competing.length, "competing pair")} (overlap ≥ ${COMPETING_THRESHOLD}; skill-central overlap lists them all):\n`;
    for (const p of r.competing) out += `  ${p.score.toFixed(3)}  ${visibleLine(p.a)}  ${visibleLine(p.b)}\n`;
  }
  out += `\nNext: skill-central list --layer ${name}, or skill-central remove ${name} to undo\n`;
  return out;
}
