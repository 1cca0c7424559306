/** The board's process: the same skills, log and stop sequence as the servers, with the page on 127.0.0.1. */
import { resolve } from "node:path";
import { competingOf } from "../board/competing.ts";
import { readBoardEvals } from "../board/evals.ts";
import { EvalsWatch } from "../board/evals-watch.ts";
import { serveBoard } from "../board/server.ts";
import { BoardState } from "../board/state.ts";
import type { BoardLoad, Findings } from "../board/views.ts";
import type { SkillAudit } from "../board/wire.ts";
import type { LoadResult } from "../load/load-skills.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { onStopSignals, stopSequence } from "./drain.ts";
import { serveLogger } from "./log.ts";
import { type OpenSkills, openSkills, type ServeOptions } from "./skills.ts";
import { portInUse } from "./start-error.ts";

export interface BoardRunOptions {
  port: number;
  /** Called with the page's URL once it is served (`--open`). */
  open?: (url: string) => void;
  /** What `validate` finds in a load (the CLI's one severity model, passed in by the command). */
  findings: (result: LoadResult) => Promise<Findings>;
  /**
   * Each served skill's audit, worked out after the load is on screen (the list's verdicts and
   * skill pages show it when it arrives); `current` turns false when a newer load replaced this
   * one, and the audit may stop and answer undefined.
   */
  audits?: (result: LoadResult, current: () => boolean) => Promise<ReadonlyMap<string, SkillAudit> | undefined>;
}

/** A stop after a signal: the streams close at once, so this is only for a page's request in flight. */
const BOARD_EXIT_MS = 500;
/** Where `serveBoard` listens (this machine only), for the port-in-use message. */
const BOARD_HOST = "127.0.0.1";

/**
 * Runs the board until SIGINT, SIGTERM or SIGHUP, as the servers run (the same log, skills and
 * stop sequence): the same skills as the server (the same loading pipeline, watched and
 * reloaded), a page on 127.0.0.1 showing each load, and its URL (with this run's token, which no
 * log line shows) as the first line on stdout. A
 * port in use throws `StartError` before anything is printed.
 */
export async function runBoard(options: ServeOptions, run: BoardRunOptions): Promise<void> {
  const logger = serveLogger(options);
  const source = new LiveRegistry();
  const live = options.watch ?? true;
  const project = resolve(options.cwd ?? process.cwd());
  const state = new BoardState(source, live, project);
  const serving = await serveBoard(state, run.port).catch((error: unknown) => {
    throw portInUse(error, BOARD_HOST, run.port) ?? error;
  });
  let skills: OpenSkills | undefined;
  // The eval results are read with each load, and again when the workspace changes (not per request).
  const evalsWatch = live
    ? new EvalsWatch(() => {
        const load = state.shown();
        if (load && state.evalsRead(load, readBoardEvals(load.result, project))) serving.announce(state.version);
      }, logger.warn)
    : undefined;
  // Before the URL is printed: whoever reads it may stop the board at once.
  const stop = stopSequence({
    deadlineMs: BOARD_EXIT_MS,
    drain: () => {
      evalsWatch?.close();
      return serving.stop();
    },
    skills: () => skills,
  });
  onStopSignals(() => void stop());
  // The one place the token is shown: the URL for the user, on stdout. The log has the address only.
  process.stdout.write(`${serving.url}\n`);
  logger.info(
    `board at ${serving.address} (this machine only; open the URL on stdout, which carries this run's token)${live ? "; watching the skill files" : ""}`,
  );
  run.open?.(serving.url);

  // One load's findings at a time, in load order: a quick second edit never shows before the first.
  let shown = Promise.resolve();
  // Off the path to the page's first ready: the load is shown first, its audit and its competing
  // skills follow (each in slices between the page's requests), shown together: one new version.
  const audit = (load: BoardLoad | undefined) => {
    if (!load) return;
    const current = () => state.shows(load);
    const cannot = (what: string) => (error: unknown) => {
      logger.warn(`cannot ${what} this load: ${String(error)}`);
      return undefined;
    };
    void Promise.all([
      run.audits?.(load.result, current).catch(cannot("audit")),
      competingOf(load.result, current).catch(cannot("search for competing skills in")),
    ]).then(([audits, competing]) => {
      if ((audits || competing) && state.audited(load, audits, competing)) serving.announce(state.version);
    });
  };
  const show = (result: LoadResult) => {
    shown = shown
      .then(async () => {
        const evals = readBoardEvals(result, project, (workspace) => evalsWatch?.follow(workspace));
        const load = { result, findings: await run.findings(result), evals };
        state.loaded(load);
        return load;
      })
      .catch((error: unknown) => void state.failed(`cannot check this load: ${String(error)}`))
      .then((load) => {
        serving.announce(state.version);
        audit(load);
      });
  };
  skills = openSkills(options, source, logger, [], {
    loaded: show,
    reloaded: (outcome) => {
      if (outcome === "ok") return;
      state.failed("the last reload failed (see the log); the previous skills are still served");
      serving.announce(state.version);
    },
  });
  await skills.live.start();
}
