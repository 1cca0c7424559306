/** `skill-central validate`: skill files checked with compiler-style findings, and their examples run. */
import { basename, dirname } from "node:path";
import type { CheckIgnore } from "../config/checks-settings.ts";
import type { LayerSpec } from "../config/resolve-config.ts";
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
  silencedJson,
  projectCheck,
  unaskableWarnings,
  type CheckInput,
} from "./support/findings.ts";
import { choosingWarnings } from "./support/project-findings.ts";
import { ownedLayer } from "../config/owned-layer.ts";
import { judgeFindings } from "./support/ownership.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, type CommandContext } from "./support/command.ts";
import { flag } from "./support/options.ts";
import { evalFileFindings } from "../storage/eval-files.ts";

interface Checked extends CheckInput {
  display: (path: string) => string;
  /** The project's layers and `checks:` settings; absent for files named on the command line (all the user's own). */
  project?: { layers: readonly LayerSpec[]; ignore: readonly CheckIgnore[] };
  /** Whether a file's skill is the project's own to fix (ownership.ts): `--strict`'s specification rules judge only those. */
  owned: (record: SkillRecord) => boolean;
  /** Whether a record is a built-in skill: the product's own, held to every rule by this project's tests. */
  builtin: (record: SkillRecord) => boolean;
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
    owned: () => true,
    builtin: () => false,
  };
}

async function checkProject(ctx: CommandContext): Promise<Checked> {
  const loaded = await load(ctx);
  const layers = loaded.config.layers;
  const owned = new Set(layers.filter(ownedLayer).map((l) => l.name));
  const builtinName = layers.find((l) => l.origin === "built-in")?.name;
  return {
    ...(await projectCheck(loaded)),
    display: loaded.display,
    project: { layers, ignore: loaded.config.checks?.ignore ?? [] },
    owned: (r) => owned.has(r.layer.name),
    builtin: (r) => r.layer.name === builtinName,
  };
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
    "tool inputSchema against the JSON Schema 2020-12 meta-schema, conflicts between files, eval files\n" +
    "(trigger sets and evals.json, docs/eval.md), and runs every inline example. Prints one line per finding,\n" +
    "`path:line:col: error: what is wrong — how to fix it`.\n" +
    "Exit 1 on any error (anything that stops a skill from being served, or a failing example); with\n" +
    "--strict, on any warning too. Findings about the form of skills the project does not own (the\n" +
    "built-in, git and url layers: description length, vague or competing descriptions, body length, …)\n" +
    "are notes, never a failure; their security and access findings still count. `checks.ignore` in the\n" +
    "config silences one rule for one skill or layer, with a reason (docs/cli.md#silencing-a-check).",
  options: {
    strict: flag(
      "Fail on warnings too (unknown fields, unused arguments, …), and hold Agent Skills (SKILL.md) to the agentskills.io specification exactly; the form of skills the project does not own (built-in, git, url layers) is noted, never failed",
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
    // The specification's letter is the project's own bar: skills it does not own are judged upstream.
    const own = checked.records.filter(checked.owned);
    // A project's check has them already (project-findings.ts, shared with doctor).
    const choosing = ctx.args.length > 0 ? choosingWarnings(checked.candidates, checked.locate) : [];
    const notes = [
      ...checked.records.flatMap(leftOutNotes),
      ...checked.records.filter((r) => !checked.builtin(r)).flatMap(unaskableWarnings),
      ...choosing,
      ...checked.records.flatMap((r) => evalFileFindings(r.path, r.skill?.id)),
    ];
    // --strict restates some served rules by the specification's letter: each problem is said once.
    const all = withStrictFindings([...found.problems, ...notes], strict ? own.flatMap(specFindings) : []);
    const judged = checked.project
      ? judgeFindings(all, { records: checked.records, ...checked.project, strict })
      : { problems: all, silenced: [] };
    const problems = judged.problems.sort(byPlace);
    const silenced = judged.silenced.reduce((n, s) => n + s.count, 0);
    const { errors, warnings } = countBySeverity(problems);
    const failed = errors > 0 || (strict && warnings > 0);
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
        silenced: judged.silenced.map((s) => silencedJson(s, checked.display)),
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
    const strictNote = strict && warnings > 0 && errors === 0 ? " (--strict: warnings fail)" : "";
    const silencedNote = silenced > 0 ? `, ${silenced} silenced by checks.ignore` : "";
    ctx.err(
      `${verdict}, ${plural(warnings, "warning")}${strictNote}${silencedNote} in ${plural(summary.files, "file")}; ${plural(examples.length, "example")} run, ${summary.examples.failed} failed\n`,
    );
    return failed ? EXIT_FAILURE : EXIT_OK;
  },
});
