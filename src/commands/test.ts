/** `skill-central test`: the skills' inline examples run through the server's own prompts/get and tools/call code. */
import type { Candidate } from "../registry/registry.ts";
import { allDiagnostics, locatorsOf } from "../load/load-skills.ts";
import { runExamples } from "../examples/run.ts";
import { exampleFailureDetail, exampleLocation } from "../cli-output/example-report.ts";
import { didYouMean } from "../suggest.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, reportLoad } from "./support/command.ts";
import { countBySeverity } from "./support/findings.ts";
import { visibleLine } from "../visible-text.ts";

export const spec = command({
  name: "test",
  summary: "Run the skills' inline examples",
  usage: "test [ids…] [--json]",
  description:
    "Runs each served skill's `examples:` through the server's own prompts/get and tools/call code and\n" +
    "reports pass or fail, with a diff for a wrong `expect`. Without ids, every served skill's examples.\n" +
    "Load problems go to stderr as the server logs them. Exit 1 when any example fails, and, without ids,\n" +
    "when the load has an error (a skill file that is not served, a conflict, a config that is ignored):\n" +
    "its examples could not run. `skill-central validate` lists every finding with its position.",
  options: {},
  examples: ["skill-central test", "skill-central test commit-conventions review-pr", "skill-central test --json"],
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const { registry } = loaded;
    const served = registry.served();
    let candidates: readonly Candidate[] = served;
    if (ctx.args.length > 0) {
      const named: Candidate[] = [];
      candidates = named;
      let unknown = false;
      for (const id of new Set(ctx.args)) {
        const candidate = registry.get(id);
        if (candidate) {
          named.push(candidate);
          if (candidate.skill.exampleCount === 0) ctx.err(`note: "${visibleLine(id)}" has no examples\n`);
          continue;
        }
        unknown = true;
        const why = registry.resolution(id)
          ? " (not served: its files conflict)"
          : didYouMean(
              id,
              served.map((c) => c.skill.id),
            );
        ctx.err(`error: ${visibleLine(`unknown skill "${id}"${why}`)}\n`);
      }
      if (unknown) return EXIT_FAILURE;
    }
    const results = await runExamples(registry, candidates, { locate: locatorsOf(loaded) });
    const failed = results.filter((r) => !r.pass).length;
    const passed = results.length - failed;
    // Named ids ask about those skills only; a whole run is about the project, broken files included.
    const { errors } = countBySeverity(allDiagnostics(loaded));
    const broken = ctx.args.length === 0 && errors > 0;
    const exit = failed > 0 || broken ? EXIT_FAILURE : EXIT_OK;
    if (ctx.json) {
      // `path` is absolute (a virtual one inside the binary); `source` is how people read it.
      json(ctx, { passed, failed, errors, results: results.map(({ path: _, ...result }) => result) });
      return exit;
    }
    const brokenNote = broken
      ? `${ctx.colours.red(plural(errors, "error"))} while loading (above, one line per file; \`skill-central validate\` lists each with its position)\n`
      : "";
    if (results.length === 0) {
      ctx.err(
        `no examples to run (add \`examples:\` to a skill file; see \`skill-central new --help\`)\n${brokenNote}`,
      );
      return exit;
    }
    const { green, red, bold } = ctx.colours;
    let text = "";
    for (const result of results) {
      if (result.pass) {
        text += `${green("pass")}  ${visibleLine(result.id)} example ${result.number}\n`;
        continue;
      }
      text += `${red(bold("FAIL"))}  ${visibleLine(result.id)} example ${result.number}  ${visibleLine(exampleLocation(result))}\n`;
      const detail = exampleFailureDetail(result, ctx.colours).map((line) => `      ${line}`.trimEnd());
      text += `${detail.join("\n")}\n`;
    }
    text += `\n${plural(results.length, "example")}: ${passed} passed, ${failed > 0 ? red(`${failed} failed`) : "0 failed"}\n`;
    ctx.out(text);
    if (brokenNote) ctx.err(brokenNote);
    return exit;
  },
});
