/** `skill-central validate`: skill files checked with compiler-style findings, and their examples run. */
import { basename, dirname, sep } from "node:path";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { loadFiles } from "../load/load-files.ts";
import type { SkillRecord } from "../load/record.ts";
import { agentSkillsSpecFindings, withStrictFindings } from "../skill/skill-md/strict.ts";
import { buildRegistry } from "../registry/registry.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import {
  byPlace,
  checkFindings,
  countBySeverity,
  findingJson,
  leftOutNotes,
  projectCheck,
  unaskableWarnings,
  type CheckInput,
} from "./support/findings.ts";
import { choosingWarnings } from "./support/project-findings.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, type CommandContext } from "./support/command.ts";
import { flag } from "./support/options.ts";

interface Checked extends CheckInput {
  display: (path: string) => string;
  /** Whether a file is one of the built-in skills: the product's, not the user's to fix. */
  builtin: (path: string) => boolean;
}

/** Files named on the command line (folders are searched like a layer), each checked on its own. */
function checkPaths(ctx: CommandContext, paths: readonly string[]): Checked {
  const files = loadFiles(paths, ctx.cwd);
  const locators = new Map(files.records.flatMap((r) => (r.locate ? [[r.path, r.locate] as const] : [])));
  return {
    records: files.records,
    general: files.diagnostics,
    registry: buildRegistry([], []).registry,
    candidates: files.candidates,
    display: files.display,
    locate: (p) => locators.get(p),
    builtin: () => false,
  };
}

async function checkProject(ctx: CommandContext): Promise<Checked> {
  const loaded = await load(ctx);
  const dir = loaded.config.layers.find((l) => l.origin === "built-in")?.dir;
  const builtin = (path: string) => dir !== undefined && (path === dir || path.startsWith(dir + sep));
  return { ...(await projectCheck(loaded)), display: loaded.display, builtin };
}

/** `--strict` holds Agent Skills folders to the agentskills.io specification exactly, for skills published to other tools. */
function specFindings(record: SkillRecord): Diagnostic[] {
  const skill = record.skill;
  if (skill?.format !== "skill-md" || !skill.frontmatter || !record.content) return [];
  let body = "";
  try {
    body = record.content.read().template ?? "";
  } catch {
    // Reported where the content is used.
  }
  const findings = agentSkillsSpecFindings({
    frontmatter: skill.frontmatter,
    folderName: basename(dirname(record.path)),
    body,
    ...(record.locate && { locate: record.locate }),
    ...(record.locateKey && { locateKey: record.locateKey }),
  });
  return findings.map((d) => ({ ...d, file: record.path }));
}

/** Descriptions a model cannot choose by: too vague, or too close to another skill's. */

export const spec = command({
  name: "validate",
  summary: "Check skill files and run their examples (compiler-style errors)",
  usage: "validate [paths…] [--strict] [--json]",
  description:
    "Without paths: everything the server would load (config, layers, every skill file). With paths: those\n" +
    "files, and the skill files under those folders. Checks YAML, the skill format, id rules, templates,\n" +
    "tool inputSchema against the JSON Schema 2020-12 meta-schema, conflicts between files, and runs every\n" +
    "inline example. Prints one line per finding, `path:line:col: error: what is wrong — how to fix it`.\n" +
    "Exit 1 on any error (anything that stops a skill from being served, or a failing example); with\n" +
    "--strict, on any warning in your own files too (the built-in skills are not yours to fix: --strict\n" +
    "does not judge them).",
  options: {
    strict: flag(
      "Fail on warnings too (unknown fields, unused arguments, …), and hold Agent Skills (SKILL.md) to the agentskills.io specification exactly; judges your files, not the built-in skills",
    ),
  },
  examples: [
    "skill-central validate",
    "skill-central validate .skills/team/review.yaml",
    "skill-central validate --strict --json",
  ],
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  async run(ctx) {
    const checked = ctx.args.length > 0 ? checkPaths(ctx, ctx.args) : await checkProject(ctx);
    const strict = ctx.options.strict;
    const found = await checkFindings(checked);
    const examples = found.examples;
    // --strict is the user's own bar: the built-in skills are held to it by this project's tests.
    const own = checked.records.filter((r) => !checked.builtin(r.path));
    // A project's check has them already (project-findings.ts, shared with doctor).
    const choosing = ctx.args.length > 0 ? choosingWarnings(checked.candidates, checked.locate) : [];
    const notes = [...checked.records.flatMap(leftOutNotes), ...own.flatMap(unaskableWarnings), ...choosing];
    // --strict restates some served rules by the specification's letter: each problem is said once.
    const problems = withStrictFindings([...found.problems, ...notes], strict ? own.flatMap(specFindings) : []).sort(
      byPlace,
    );
    const { errors, warnings } = countBySeverity(problems);
    const ownWarnings = countBySeverity(
      problems.filter((d) => d.file === undefined || !checked.builtin(d.file)),
    ).warnings;
    const failed = errors > 0 || (strict && ownWarnings > 0);
    const passed = examples.filter((r) => r.pass).length;
    const summary = {
      files: checked.records.length,
      skills: checked.candidates.length,
      errors,
      warnings,
      examples: { passed, failed: examples.length - passed },
    };
    if (ctx.json) {
      json(ctx, {
        ok: !failed,
        ...summary,
        problems: problems.map((d) => findingJson(d, checked.display)),
      });
      return failed ? EXIT_FAILURE : EXIT_OK;
    }
    ctx.out(
      problems
        .map((d) => `${colourDiagnostic(formatDiagnostic(d, { display: checked.display }), ctx.colours)}\n`)
        .join(""),
    );
    const verdict =
      errors > 0
        ? ctx.colours.red(plural(errors, "error"))
        : failed
          ? ctx.colours.red("no errors")
          : ctx.colours.green("no errors");
    const strictNote = strict && ownWarnings > 0 && errors === 0 ? " (--strict: warnings fail)" : "";
    ctx.err(
      `${verdict}, ${plural(warnings, "warning")}${strictNote} in ${plural(summary.files, "file")}; ${plural(examples.length, "example")} run, ${summary.examples.failed} failed\n`,
    );
    return failed ? EXIT_FAILURE : EXIT_OK;
  },
});
