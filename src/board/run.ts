import type { LoadResult } from "../load/load-skills.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { exitWithin, onStopSignals } from "../serve/drain.ts";
import { createLogger } from "../serve/log.ts";
import { openSkills, type ServeOptions } from "../serve/skills.ts";
import { serveBoard } from "./server.ts";
import { BoardState } from "./state.ts";
import type { Findings } from "./views.ts";

export interface BoardRunOptions {
  port: number;
  /** Called with the page's URL once it is served (`--open`). */
  open?: (url: string) => void;
  /** What `validate` finds in a load (the CLI's one severity model, passed in by the command). */
  findings: (result: LoadResult) => Promise<Findings>;
}

/** A stop after a signal: the streams close at once, so this is only for a page's request in flight. */
const BOARD_EXIT_MS = 500;

/**
 * Runs the board until SIGINT, SIGTERM or SIGHUP: the same skills as the server (the same
 * loading pipeline, watched and reloaded), a page on 127.0.0.1 showing each load, and its URL
 * as the first line on stdout. A port in use throws (code `EADDRINUSE`) before anything is printed.
 */
export async function runBoard(options: ServeOptions, run: BoardRunOptions): Promise<void> {
  const logger = createLogger();
  const source = new LiveRegistry();
  const live = options.watch ?? true;
  const state = new BoardState(source, live);
  const serving = await serveBoard(state, run.port);
  process.stdout.write(`${serving.url}\n`);
  logger.info(`board at ${serving.url} (this machine only)${live ? "; watching the skill files" : ""}`);
  run.open?.(serving.url);

  // One load's findings at a time, in load order: a quick second edit never shows before the first.
  let shown = Promise.resolve();
  const show = (result: LoadResult) => {
    shown = shown
      .then(async () => state.loaded({ result, findings: await run.findings(result) }))
      .catch((error: unknown) => state.failed(`cannot check this load: ${String(error)}`))
      .then(() => serving.announce(state.version));
  };
  const skills = openSkills(options, source, logger, [], {
    loaded: show,
    reloaded: (outcome) => {
      if (outcome === "ok") return;
      state.failed("the last reload failed (see the log); the previous skills are still served");
      serving.announce(state.version);
    },
  });
  let stopping = false;
  onStopSignals(() => {
    if (stopping) return;
    stopping = true;
    exitWithin(BOARD_EXIT_MS);
    skills.live.close();
    skills.close();
    void serving.stop().finally(() => process.exit(0));
  });
  await skills.live.start();
}
