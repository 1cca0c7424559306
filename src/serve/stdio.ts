/** The stdio server's process: `initialize` answered at once while the first load runs, then reloads as files change. */
import { governedConfig } from "../config/governed-config.ts";
import type { LoadResult } from "../load/load-skills.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { serveMcpOverStdio } from "../mcp/stdio.ts";
import { StdioTransport, type FrameOutput } from "../mcp/stdio-transport.ts";
import { SERVER_NAME, VERSION } from "../version.ts";
import { DRAIN_DEADLINE_MS, onStopSignals, stopSequence } from "./drain.ts";
import { serveLogger } from "./log.ts";
import { UsageLog } from "./usage-log.ts";
import { folderProject } from "../storage/project-identity.ts";
import { counts, openSkills, type Milestone, type OpenSkills, type ServeOptions } from "./skills.ts";

/** How long the server waits for a client's first line (its initialize) before it starts loading. */
export const FIRST_LINE_WAIT_MS = 20;

/**
 * Runs the stdio MCP server. Loading starts at once and `initialize` is answered without waiting
 * for it; list and get requests wait for the first load, so the client's first real answer is
 * never a partial set. Then, unless `watch` is false, every change to a layer folder or config
 * file reloads the skills and swaps them in whole; a governed server (policy.approvers) reloads
 * on a new admin log entry even with `watch` false, and so declares listChanged.
 */
export async function runStdio(options: ServeOptions): Promise<void> {
  const startedAt = performance.now();
  const logger = serveLogger(options);
  const watch = options.watch ?? true;
  const source = new LiveRegistry();
  const transport = new StdioTransport({ input: process.stdin, output: claimStdout(), warn: logger.warn });
  let skills: OpenSkills | undefined;

  let exiting = false;
  const stop = stopSequence({
    deadlineMs: DRAIN_DEADLINE_MS,
    // Ends open subscriptions/listen streams with their closing result, then flushes stdout.
    drain: async () => {
      await serving.close();
      await transport.flush();
    },
    skills: () => skills,
  });
  const exit = () => {
    exiting = true;
    void stop();
  };
  transport.onDrained = exit;
  // A signal stops reading; what was read is answered (then `onDrained`), within the deadline.
  onStopSignals(() => {
    stop.arm();
    transport.stopReading();
  });
  process.stdout.on?.("error", exit);
  // Served first, so `initialize` is answered while the cache is read and the skills load.
  const usage = new UsageLog(logger.warn, () => folderProject(options.cwd));
  // A governed server obeys the admin log with or without --no-watch, so its lists can change (docs/governance.md).
  const live = watch || (await governedConfig(options));
  const serving = serveMcpOverStdio(source, transport, { live, warn: logger.warn, onUse: usage.hook() });
  const milestones: Milestone[] = [["mcp command", startedAt]];
  const firstLineAt = await firstLine(transport);
  if (firstLineAt !== undefined) milestones.push(["first line read", firstLineAt]);
  await new Promise<void>((resolve) => setImmediate(resolve));

  // A person who runs `skill-central mcp` in a terminal sees one line, not a silent wait. An IDE
  // (stdin a pipe) gets nothing it did not ask for.
  const firstLoad =
    process.stdin.isTTY === true ? (result: LoadResult) => logger.info(terminalGreeting(result)) : undefined;
  skills = openSkills(options, source, logger, milestones, { usage, ...(firstLoad && { firstLoad }) });
  if (exiting) return;
  await skills.live.start();
}

/** Only the transport may write to stdout: anything else written there goes to stderr. */
function claimStdout(): FrameOutput {
  const write = process.stdout.write.bind(process.stdout) as FrameOutput["write"];
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return { write, once: (event, listener) => process.stdout.once(event, listener) };
}

/**
 * When the client's first line was read, or undefined. A client writes initialize as soon as it
 * spawns us: answer it before the index and the first load keep this thread busy. Bun hands
 * stdin over a few turns of the event loop later (one turn was not enough: initialize waited for
 * the whole first load), so wait for the first line, for a client that has not written yet at
 * most FIRST_LINE_WAIT_MS, then let the SDK answer it.
 */
async function firstLine(transport: StdioTransport): Promise<number | undefined> {
  if (process.stdin.isTTY === true) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(resolve, FIRST_LINE_WAIT_MS, false)));
  const read = await Promise.race([transport.firstLineRead.then(() => true), waited]);
  clearTimeout(timer);
  return read ? performance.now() : undefined;
}

/** The line for a person at a terminal: what is served, from where, and what the server waits for. */
export function terminalGreeting(result: LoadResult): string {
  const served = result.registry.served().length;
  const layers = result.registry.layers.map((l) => l.name);
  const from =
    layers.length === 0
      ? "no layers"
      : `${layers.length} layer${layers.length === 1 ? "" : "s"} (${layers.join(", ")})`;
  const what = `serving ${served} skill${served === 1 ? "" : "s"} (${counts(result)}) from ${from}`;
  return `${SERVER_NAME} ${VERSION}: ${what}; waiting for an MCP client on stdin; Ctrl-C to stop`;
}
