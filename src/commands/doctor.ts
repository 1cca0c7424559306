/** `skill-central doctor`: everything `validate` finds, plus the config files, layers, shadowing, git layers and IDE clients. */
import { DEFAULT_CATALOG_SETTINGS } from "../config/catalog-settings.ts";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import { formatDiagnostic } from "../diagnostics.ts";
import type { LoadResult } from "../load/load-skills.ts";
import type { Registry, Resolution } from "../registry/registry.ts";
import { layerDirState, type LayerDirState } from "../storage/fs-state.ts";
import { colourDiagnostic, type Palette } from "../cli-output/colour.ts";
import { formatTable } from "../cli-output/table.ts";
import { gitLayerProblems, gitLayerRows, gitLayerStatuses, type GitLayerStatus } from "../sources/report.ts";
import { provenanceProblems, provenanceRows } from "../sources/provenance-report.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural } from "./support/command.ts";
import { checkFindings, countBySeverity, findingJson, projectCheck, silencedJson } from "./support/findings.ts";
import { judgeFindings, type Silenced } from "./support/ownership.ts";
import { governanceJson, governanceText } from "./support/governance-report.ts";
import { clientReport, formatClientStatuses } from "./support/install-output.ts";
import { visibleLine } from "../visible-text.ts";

export interface LayerReport {
  name: string;
  priority: number;
  dir: string;
  origin: string;
  state: LayerDirState;
  /** Outside `policy.sources` (docs/governance.md): nothing of it is read or served. */
  refused?: true;
  /** Skill files found in the folder (names starting with `_` or `.` excluded). */
  files: number;
  /** Skills of this layer the server serves (the others are shadowed, conflicted or broken). */
  served: number;
}

export interface ShadowReport {
  id: string;
  effective: { layer: string; priority: number; source: string };
  shadowed: { layer: string; priority: number; source: string }[];
}

export interface DuplicateReport {
  id: string;
  layer: string;
  sources: string[];
  /** True when the duplicate is in the winning layer: the id is not served at all. */
  withdrawn: boolean;
}

/** Same-id files within one layer, from the registry's chains (both files named). */
function duplicates(resolution: Resolution): DuplicateReport[] {
  const byLayer = new Map<string, string[]>();
  for (const { candidate } of resolution.chain) {
    const list = byLayer.get(candidate.layer.name) ?? [];
    list.push(candidate.source);
    byLayer.set(candidate.layer.name, list);
  }
  const top = resolution.chain[0]?.candidate.layer.name;
  return [...byLayer]
    .filter(([, sources]) => sources.length > 1)
    .map(([layer, sources]) => ({
      id: resolution.id,
      layer,
      sources,
      withdrawn: !resolution.effective && layer === top,
    }));
}

export const spec = command({
  name: "doctor",
  summary: "Everything validate finds, plus config files, layers, shadowing, git layers and IDE clients",
  usage: "doctor [--json]",
  description:
    "Reports the config files found and merged, each layer (folder state, skill files, skills served),\n" +
    "unknown or ill-typed config keys, broken skill files, ids shadowed by a higher layer and ids\n" +
    "defined twice in one layer (both files named), and prompt skills whose tags no other prompt skill\n" +
    "shares (skills:compose by those tags returns only that skill). Runs every inline example, as validate\n" +
    "does: its findings are validate's plus these, judged as validate judges them (the form of built-in,\n" +
    "git and url skills is a note; checks.ignore entries are listed under Silenced). Exit 1 on errors (a\n" +
    "broken file, an id withdrawn by a conflict, a failing example), 0 when there are only warnings.",
  options: {},
  examples: ["skill-central doctor", "skill-central doctor --json"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    const { config, display } = loaded;
    const layers = layerReports(loaded);
    const { shadowed, dupes } = shadowing(loaded.registry);
    // The same findings as `validate`, examples included, whole-project ones too (so the two, and
    // `validate --strict`, agree); then the git layers' state: warnings, never errors.
    const found = await checkFindings(await projectCheck(loaded));
    const { examples } = found;
    // Judged as validate judges them: the form of skills the project does not own is a note; checks.ignore applied.
    const { problems, silenced } = judgeFindings(found.problems, {
      records: loaded.records,
      layers: config.layers,
      ignore: config.checks?.ignore ?? [],
      strict: false,
    });
    const git = await gitLayerStatuses(config.layers, { cwd: ctx.cwd });
    for (const problem of [...gitLayerProblems(git), ...provenanceProblems(config.layers)]) problems.push(problem);
    const { errors, warnings } = countBySeverity(problems);
    const examplesFailed = examples.filter((r) => !r.pass).length;
    const exit = errors > 0 ? EXIT_FAILURE : EXIT_OK;
    const clients = await clientReport(ctx.cwd);

    if (ctx.json) {
      json(ctx, {
        ok: errors === 0,
        configFiles: config.files.map(display),
        builtin: config.builtin,
        ...(config.pageSize !== undefined && { pageSize: config.pageSize }),
        catalog: config.catalog ?? DEFAULT_CATALOG_SETTINGS,
        layers,
        shadowed,
        duplicates: dupes,
        errors,
        warnings,
        examples: { passed: examples.length - examplesFailed, failed: examplesFailed },
        problems: problems.map((d) => findingJson(d, display)),
        silenced: silenced.map((s) => silencedJson(s, display)),
        ...(git.length > 0 && { git: git.map((g) => ({ ...g, origin: display(g.origin) })) }),
        provenance: config.layers.flatMap((l) => (l.provenance ? [{ name: l.name, ...l.provenance }] : [])),
        ...(loaded.governance && { governance: governanceJson(loaded.governance) }),
        clients,
      });
      return exit;
    }

    const { bold, red, yellow, green } = ctx.colours;
    let text = configText(config, display, ctx.colours);
    text += layersText(layers, git, display, ctx.colours, config.layers);
    text += `\n${bold("Shadowed ids")}\n`;
    text +=
      shadowed.length === 0
        ? "  none\n"
        : shadowed
            .map(
              (s) =>
                `  ${visibleLine(`${s.id}: ${s.effective.source} (${s.effective.layer}, ${s.effective.priority}) shadows ${s.shadowed.map((o) => `${o.source} (${o.layer}, ${o.priority})`).join(", ")}`)}\n`,
            )
            .join("");

    text += `\n${bold("Problems")}\n`;
    text +=
      problems.length === 0
        ? "  none\n"
        : problems.map((d) => `  ${colourDiagnostic(formatDiagnostic(d, { display }), ctx.colours)}\n`).join("");
    text += silencedText(silenced, display, ctx.colours);
    if (loaded.governance) text += governanceText(loaded.governance, ctx.colours);
    text += `\n${formatClientStatuses(clients, ctx.colours)}`;
    const verdict = errors > 0 ? red(plural(errors, "error")) : warnings > 0 ? yellow("no errors") : green("all good");
    text += `\n${verdict}, ${plural(warnings, "warning")}; ${plural(examples.length, "example")} run, ${examplesFailed} failed\n`;
    ctx.out(text);
    return exit;
  },
});

/** Each configured layer: its folder's state, the skill files found in it, and how many it serves. */
function layerReports({ registry, config, display, records }: LoadResult): LayerReport[] {
  const servedPerLayer = new Map<string, number>();
  for (const c of registry.served()) servedPerLayer.set(c.layer.name, (servedPerLayer.get(c.layer.name) ?? 0) + 1);
  const filesPerLayer = new Map<string, number>();
  for (const r of records) filesPerLayer.set(r.layer.name, (filesPerLayer.get(r.layer.name) ?? 0) + 1);
  return config.layers.map((spec) => ({
    name: spec.name,
    priority: spec.priority,
    dir: display(spec.dir),
    origin: spec.origin,
    state: layerDirState(spec.dir),
    ...(spec.outsidePolicy && { refused: true as const }),
    files: filesPerLayer.get(spec.name) ?? 0,
    served: servedPerLayer.get(spec.name) ?? 0,
  }));
}

/** Ids a higher layer shadows, and ids given twice within one layer. */
function shadowing(registry: Registry): { shadowed: ShadowReport[]; dupes: DuplicateReport[] } {
  const shadowed: ShadowReport[] = [];
  const dupes: DuplicateReport[] = [];
  for (const resolution of registry.resolutions()) {
    for (const dupe of duplicates(resolution)) dupes.push(dupe);
    const winner = resolution.effective;
    if (!winner || resolution.chain.length < 2) continue;
    const place = (c: typeof winner) => ({ layer: c.layer.name, priority: c.layer.priority, source: c.source });
    shadowed.push({
      id: resolution.id,
      effective: place(winner),
      shadowed: resolution.chain.slice(1).map((p) => place(p.candidate)),
    });
  }
  return { shadowed, dupes };
}

function configText(config: ResolvedConfig, display: (path: string) => string, { bold, dim }: Palette): string {
  let text = `${bold("Config files")} ${dim("(user first; the project's settings win)")}\n`;
  text +=
    config.files.length > 0
      ? config.files.map((f) => `  ${visibleLine(display(f))}\n`).join("")
      : "  none (built-in skills, plus .skills/ when it exists)\n";
  text += `  built-in skills: ${config.builtin ? "on" : "off"}${config.pageSize !== undefined ? `; pageSize: ${config.pageSize}` : ""}\n`;
  const catalog = config.catalog ?? DEFAULT_CATALOG_SETTINGS;
  text += `  catalog: ${catalog.mode}; toolSkills: ${catalog.toolSkills}; toolCap: ${catalog.toolCap} ${dim("(docs/catalog.md)")}\n`;
  return text;
}

function layersText(
  layers: LayerReport[],
  git: GitLayerStatus[],
  display: (path: string) => string,
  { bold, dim }: Palette,
  specs: ResolvedConfig["layers"],
): string {
  const indent = (table: string) =>
    table
      .split("\n")
      .map((line) => (line === "" ? "" : `  ${line}`))
      .join("\n");
  let text = `\n${bold("Layers")} ${dim("(declaration order; higher priority wins, ties go to the later one)")}\n`;
  if (layers.length === 0) text += "  none\n";
  else {
    const state = (l: LayerReport) =>
      l.refused
        ? "refused (outside policy.sources)"
        : l.state === "ok"
          ? `${plural(l.files, "file")}, ${l.served} served`
          : l.state === "missing"
            ? "missing"
            : "not a folder";
    text += indent(
      formatTable([
        ["NAME", "PRIORITY", "FOLDER", "STATE", "FROM"],
        ...layers.map((l) => [l.name, String(l.priority), l.dir, state(l), display(l.origin)]),
      ]),
    );
  }
  if (git.length > 0) text += `\n${bold("Git layers")}\n${indent(formatTable(gitLayerRows(git)))}`;
  const provenance = provenanceRows(specs);
  if (provenance.length > 0) text += `\n${bold("Provenance")}\n${indent(formatTable(provenance))}`;
  return text;
}

/** Each `checks.ignore` entry: what it silences, how many findings it did, why, and where it is written. */
function silencedText(
  silenced: readonly Silenced[],
  display: (path: string) => string,
  { bold, dim }: Palette,
): string {
  if (silenced.length === 0) return "";
  let text = `\n${bold("Silenced")} ${dim("(checks.ignore: shown here, left out of the problems and the exit status)")}\n`;
  for (const { entry, count } of silenced) {
    const where = `${display(entry.file)}${entry.position ? `:${entry.position.line}:${entry.position.column}` : ""}`;
    const what = entry.skill !== undefined ? `skill ${entry.skill}` : `layer ${entry.layer}`;
    text += `  ${visibleLine(`${entry.rule} for ${what}: ${plural(count, "finding")} — ${entry.reason}`)} ${dim(`(${visibleLine(where)})`)}\n`;
  }
  return text;
}
