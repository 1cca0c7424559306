import { basename, dirname } from "node:path";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { agentSkillsSpecFindings } from "../skill/skill-md/strict.ts";
import { runExamples } from "../examples/run.ts";
import { loadFiles } from "../load/load-files.ts";
import { locatorsOf } from "../load/load-skills.ts";
import type { SkillRecord } from "../load/record.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import { buildRegistry } from "../registry/registry.ts";
import type { Locator } from "../storage/parse-document.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { exampleDiagnostic } from "../cli-output/example-report.ts";
import { EXIT_FAILURE, EXIT_OK, flagOption, json, load, plural, type CommandContext, type CommandSpec } from "./support/command.ts";

interface Checked {
  records: readonly SkillRecord[];
  /** Findings not about one file's content: config, layers, resolution. */
  general: Diagnostic[];
  registry: Registry;
  /** Every candidate whose examples run: all that loaded, served or not. */
  candidates: readonly Candidate[];
  display: (path: string) => string;
  locate: (path: string) => Locator | undefined;
}

/** Files named on the command line (folders are searched like a layer), each checked on its own. */
function checkPaths(ctx: CommandContext, paths: readonly string[]): Checked {
  const files = loadFiles(paths, ctx.cwd);
  const locators = new Map(files.records.flatMap((r) => (r.locate ? [[r.path, r.locate] as const] : [])));
  return { records: files.records, general: files.diagnostics, registry: buildRegistry([], []).registry, candidates: files.candidates, display: files.display, locate: (p) => locators.get(p) };
}

/** Everything the server would load, through its own pipeline: the records say it all. */
async function checkProject(ctx: CommandContext): Promise<Checked> {
  const loaded = await load(ctx);
  const candidates = loaded.registry.resolutions().flatMap((r) => r.chain.map((p) => p.candidate));
  return { records: loaded.records, general: loaded.diagnostics, registry: loaded.registry, candidates, display: loaded.display, locate: locatorsOf(loaded) };
}

function specFindings(record: SkillRecord): Diagnostic[] {
  const skill = record.skill;
  if (skill?.format !== "skill-md" || !skill.frontmatter || !record.content) return [];
  let body = "";
  try {
    body = record.content.read().template ?? "";
  } catch {
    // Reported where the content is used.
  }
  const findings = agentSkillsSpecFindings({ frontmatter: skill.frontmatter, folderName: basename(dirname(record.path)), body, ...(record.locate && { locate: record.locate }), ...(record.locateKey && { locateKey: record.locateKey }) });
  return findings.map((d) => ({ ...d, file: record.path }));
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
  usage: "validate [paths…] [--strict] [--json]",
  description:
    "Without paths: everything the server would load (config, layers, every skill file). With paths: those\n" +
    "files, and the skill files under those folders. Checks YAML, the skill format, id rules, templates,\n" +
    "tool inputSchema against the JSON Schema 2020-12 meta-schema, conflicts between files, and runs every\n" +
    "inline example. Prints one line per finding, `path:line:col: error: what is wrong — how to fix it`.\n" +
    "Exit 1 on any error (anything that stops a skill from being served, or a failing example); with\n" +
    "--strict, on any warning too.",
  options: { strict: { type: "boolean" } },
  optionHelp: [["--strict", "Fail on warnings too, and hold Agent Skills (SKILL.md) to the agentskills.io specification exactly"]],
  examples: ["skill-central validate", "skill-central validate .skills/team/review.yaml", "skill-central validate --strict --json"],
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  async run(ctx) {
    const checked = ctx.args.length > 0 ? checkPaths(ctx, ctx.args) : await checkProject(ctx);
    const examples = await runExamples(checked.registry, checked.candidates, { locate: checked.locate });
    const strict = flagOption(ctx, "strict");
    // --strict holds Agent Skills to the specification exactly, for skills published elsewhere too.
    const spec = strict ? checked.records.flatMap(specFindings) : [];
    const problems = [...checked.general, ...checked.records.flatMap((r) => r.diagnostics), ...spec, ...examples.filter((r) => !r.pass).map(exampleDiagnostic)].sort(byPlace);
    const errors = problems.filter((d) => d.severity === "error").length;
    const warnings = problems.filter((d) => d.severity === "warning").length;
    const failed = errors > 0 || (strict && warnings > 0);
    const passed = examples.filter((r) => r.pass).length;
    const summary = { files: checked.records.length, skills: checked.candidates.length, errors, warnings, examples: { passed, failed: examples.length - passed } };
    if (ctx.json) {
      json(ctx, {
        ok: !failed,
        ...summary,
        problems: problems.map((d) => ({
          ...(d.file !== undefined && { file: checked.display(d.file) }),
          ...(d.position && { line: d.position.line, column: d.position.column }),
          severity: d.severity,
          rule: d.code,
          message: d.message,
          ...(d.hint !== undefined && { hint: d.hint }),
        })),
      });
      return failed ? EXIT_FAILURE : EXIT_OK;
    }
    ctx.out(problems.map((d) => `${colourDiagnostic(formatDiagnostic(d, { display: checked.display }), ctx.colours)}\n`).join(""));
    const verdict = errors > 0 ? ctx.colours.red(plural(errors, "error")) : failed ? ctx.colours.red("no errors") : ctx.colours.green("no errors");
    const strictNote = strict && warnings > 0 && errors === 0 ? " (--strict: warnings fail)" : "";
    ctx.err(`${verdict}, ${plural(warnings, "warning")}${strictNote} in ${plural(summary.files, "file")}; ${plural(examples.length, "example")} run, ${summary.examples.failed} failed\n`);
    return failed ? EXIT_FAILURE : EXIT_OK;
  },
};
