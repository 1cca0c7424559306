import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { runExamples } from "../examples/run.ts";
import type { Candidate, LayerRef, Registry } from "../registry/registry.ts";
import { buildRegistry } from "../registry/registry.ts";
import type { Locator } from "../storage/parse-document.ts";
import { discoverSkillFiles } from "../storage/discover.ts";
import { layerDirState } from "../storage/fs-state.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { exampleDiagnostic } from "../cli-output/example-report.ts";
import { displayPath } from "../storage/display-path.ts";
import { checkSkillFile, type FileCheck } from "./support/check-file.ts";
import { EXIT_FAILURE, EXIT_OK, json, load, plural, type CommandContext, type CommandSpec } from "./support/command.ts";

interface Checked {
  /** Problems not tied to one skill file's content: config, layers, resolution. */
  general: Diagnostic[];
  files: FileCheck[];
  registry: Registry;
  /** Every candidate whose examples run: all that loaded, served or not. */
  candidates: Candidate[];
}

/** Files named on the command line (folders are searched like a layer), each checked on its own. */
async function checkPaths(ctx: CommandContext, paths: readonly string[]): Promise<Checked> {
  const general: Diagnostic[] = [];
  const files: string[] = [];
  for (const path of paths) {
    const full = isAbsolute(path) ? path : join(ctx.cwd, path);
    const state = await layerDirState(full);
    if (state === "ok") files.push(...(await discoverSkillFiles(full)));
    else if (state === "not-a-directory") files.push(full);
    else general.push({ severity: "error", code: "no-such-file", file: displayPath(full, ctx.cwd), message: "no such file or folder" });
  }
  const checks = await Promise.all([...new Set(files)].map((file) => checkSkillFile(file, ctx.cwd)));
  const layer: LayerRef = { name: "paths", priority: 0, order: 0 };
  const candidates = checks.flatMap((c) => (c.skill ? [{ skill: c.skill, layer, source: c.source }] : []));
  // Each file stands alone: two named files sharing an id are not a conflict here.
  return { general, files: checks, registry: buildRegistry([layer], []).registry, candidates };
}

/**
 * Everything the server would load, through its own pipeline; each file is then checked again on
 * its own so that every problem gets its own line. The loader's per-file lines (one per file)
 * are dropped where the file check reported the same file and kind.
 */
async function checkProject(ctx: CommandContext): Promise<Checked> {
  const loaded = await load(ctx);
  const perLayer = await Promise.all(loaded.config.layers.map(async (spec) => ((await layerDirState(spec.dir)) === "ok" ? discoverSkillFiles(spec.dir) : [])));
  const checks = await Promise.all(perLayer.flat().map((file) => checkSkillFile(file, ctx.cwd)));
  const covered = new Set(checks.flatMap((c) => c.diagnostics.map((d) => `${d.file}\0${d.code}`)));
  const general = loaded.diagnostics.filter((d) => !covered.has(`${d.file}\0${d.code}`));
  const candidates = loaded.registry.resolutions().flatMap((r) => r.chain.map((p) => p.candidate));
  return { general, files: checks, registry: loaded.registry, candidates };
}

function byPlace(a: Diagnostic, b: Diagnostic): number {
  const fa = a.file ?? "";
  const fb = b.file ?? "";
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (a.position?.line ?? 0) - (b.position?.line ?? 0) || (a.position?.column ?? 0) - (b.position?.column ?? 0);
}

export const spec: CommandSpec = {
  name: "validate",
  summary: "Check skill files and run their examples (compiler-style errors)",
  usage: "validate [paths…] [--json]",
  description:
    "Without paths: everything the server would load (config, layers, every skill file). With paths: those\n" +
    "files, and the skill files under those folders. Checks YAML, the skill format, id rules, templates,\n" +
    "tool inputSchema against the JSON Schema 2020-12 meta-schema, and runs every inline example.\n" +
    "Prints one line per problem, `path:line:col: error: message`; exit 1 on any error.",
  options: {},
  optionHelp: [],
  examples: ["skill-central validate", "skill-central validate .skills/team/review.yaml", "skill-central validate --json"],
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  async run(ctx) {
    const checked = ctx.args.length > 0 ? await checkPaths(ctx, ctx.args) : await checkProject(ctx);
    const locators = new Map<string, Locator>();
    for (const file of checked.files) if (file.locate) locators.set(file.source, file.locate);
    const examples = await runExamples(checked.registry, checked.candidates, { cwd: ctx.cwd, locators });
    const problems = [...checked.general, ...checked.files.flatMap((f) => f.diagnostics), ...examples.filter((r) => !r.pass).map(exampleDiagnostic)].sort(byPlace);
    const errors = problems.filter((d) => d.severity === "error").length;
    const warnings = problems.filter((d) => d.severity === "warning").length;
    const passed = examples.filter((r) => r.pass).length;
    const summary = { files: checked.files.length, skills: checked.candidates.length, errors, warnings, examples: { passed, failed: examples.length - passed } };
    if (ctx.json) {
      json(ctx, { ok: errors === 0, ...summary, problems });
      return errors > 0 ? EXIT_FAILURE : EXIT_OK;
    }
    ctx.out(problems.map((d) => `${colourDiagnostic(formatDiagnostic(d), ctx.colours)}\n`).join(""));
    const verdict = errors > 0 ? ctx.colours.red(plural(errors, "error")) : ctx.colours.green("no errors");
    ctx.err(
      `${verdict}, ${plural(warnings, "warning")} in ${plural(summary.files, "file")}; ${plural(examples.length, "example")} run, ${summary.examples.failed} failed\n`,
    );
    return errors > 0 ? EXIT_FAILURE : EXIT_OK;
  },
};
