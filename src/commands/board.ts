/** `skill-central board`: the spec of the web board's command; its process is src/serve/board.ts's. */
import { sep } from "node:path";
import type { LoadResult } from "../load/load-skills.ts";
import { writeLaunchFile } from "../board/launch-file.ts";
import type { Findings } from "../board/views.ts";
import { LOG_FORMATS } from "../serve/log.ts";
import { command, SERVING, UsageError } from "./support/command.ts";
import { byPlace, checkFindings, leftOutNotes, projectCheck, unaskableWarnings } from "./support/findings.ts";
import { choice, flag, wholeNumber } from "./support/options.ts";
import { judgeFindings } from "./support/ownership.ts";

const DEFAULT_PORT = 8741;

/**
 * What `validate` (without --strict) finds in a load, judged as validate judges them (the form of
 * a skill the project does not own is a note; `checks.ignore` applies), the examples' verdicts
 * with it; skills that compete are searched for after the load is shown (board/competing.ts), not
 * on the way to it.
 */
async function findingsOf(result: LoadResult): Promise<Findings> {
  const found = await checkFindings(await projectCheck(result, { competing: false }));
  const dir = result.config.layers.find((l) => l.origin === "built-in")?.dir;
  const own = result.records.filter((r) => dir === undefined || !(r.path === dir || r.path.startsWith(dir + sep)));
  const problems = [...found.problems, ...result.records.flatMap(leftOutNotes), ...own.flatMap(unaskableWarnings)];
  const judged = judgeFindings(problems, {
    records: result.records,
    layers: result.config.layers,
    ignore: result.config.checks?.ignore ?? [],
    strict: false,
  });
  return { problems: judged.problems.sort(byPlace), examples: found.examples };
}

/**
 * Opens the page (its URL carries the run's token; the opener is given a private file that goes
 * on to it, launch-file.ts) in the desktop's browser. The opener answers at once and its browser runs on;
 * one that is missing, or that finds no browser (xdg-open on a server, over SSH, in a
 * container exits non-zero without a word), is reported on stderr with the URL to open.
 */
function openInBrowser(url: string): void {
  // A private file that goes on to the URL: the token stays out of the process list.
  const target = writeLaunchFile(url) ?? url;
  const opener =
    process.platform === "darwin"
      ? ["open", target]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", target]
        : ["xdg-open", target];
  // stderr is the log: it names the URL on stdout, its token elided.
  const shown = url.replace(/([?&]token=)[^&#]*/, "$1…");
  const cannot = (why: string) =>
    process.stderr.write(
      `board --open: could not open a browser (${why}); open the URL on stdout (${shown}) yourself\n`,
    );
  try {
    const child = Bun.spawn(opener, { stdio: ["ignore", "ignore", "ignore"] });
    child.unref();
    void child.exited.then((code) => {
      if (code !== 0) cannot(`${opener[0]} exited with code ${code}`);
    });
  } catch (error) {
    const missing = (error as { code?: string }).code === "ENOENT";
    cannot(
      missing
        ? `${opener[0]} was not found`
        : `${opener[0]}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export const spec = command({
  name: "board",
  summary: "A live web page of every skill, its provenance, problems and what each client gets",
  usage: "board [--port <n>] [--open] [--no-watch] [--log-format text|json]",
  description:
    "Serves a page on 127.0.0.1 (only this machine, only that page may read its data) from the server's own\n" +
    "loading pipeline: the served skills and what they shadow, problems as `validate` reports them, search\n" +
    "ranked as find_skills ranks it, each skill's source, a form whose preview is what prompts/get or\n" +
    "tools/call returns, its examples' verdicts, its audit (`skill-central audit`; shown once worked out),\n" +
    "and what Claude Code, Cursor, VS Code, Windsurf, Codex and others get from tools/list, prompts/list\n" +
    "and initialize. Edits on disk show within about a second.\n" +
    "The first line on stdout is the page's URL, with this run's token (?token=…): only a browser that opened it\n" +
    "(or a script sending Authorization: Bearer <token>) may read the board. See docs/board.md.",
  options: {
    port: wholeNumber(0, 65_535, "<n>", `Port (default ${DEFAULT_PORT}; 0 picks a free one)`),
    open: flag("Open the page in the default browser"),
    watch: flag("Do not reload when skill or config files change", { negatable: true }),
    "log-format": choice(LOG_FORMATS, "The log on stderr: text lines (the default) or one JSON object per line", {
      default: "text",
    }),
  },
  examples: ["skill-central board --open", "skill-central board --port 0"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const [{ runBoard }, { StartError }, { servedAudits }] = await Promise.all([
      import("../serve/board.ts"),
      import("../serve/start-error.ts"),
      import("../board/audits.ts"),
    ]);
    const port = ctx.options.port ?? DEFAULT_PORT;
    const load = { cwd: ctx.cwd, ...(ctx.builtin === false && { builtin: false as const }), keepLocators: true };
    const serve = { ...load, watch: ctx.options.watch, logFormat: ctx.options["log-format"] };
    // A port in use: the board does not start, and the command line says why.
    const board = {
      port,
      ...(ctx.options.open && { open: openInBrowser }),
      findings: findingsOf,
      audits: servedAudits,
    };
    await runBoard(serve, board).catch((error: unknown) => {
      throw error instanceof StartError ? new UsageError(error.message) : error;
    });
    return SERVING;
  },
});
