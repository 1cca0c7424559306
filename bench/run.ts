#!/usr/bin/env bun
/**
 * The benchmark: skill-central (source entry and compiled binary), cold and warm, against a bare
 * SDK server (the floor), on generated corpora, in one interleaved run. `bun run bench --help`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { buildFloor, buildOurs, OUT_DIR, REPO_ROOT, type Built } from "./lib/build.ts";
import { ensureCorpus, waitUntilSettled, type Corpus } from "./lib/corpora.ts";
import { Homes, indexIn } from "./lib/homes.ts";
import { parseOptions, USAGE, UsageError, type BenchOptions, type Mode, type TargetName } from "./lib/options.ts";
import { anyFailed, renderReport, type BenchSample, type ReportInput, type RunMeta } from "./lib/report.ts";
import { closeAllSessions, killAllSessionsNow, runSession, type Launch, type SessionPlan } from "./lib/session.ts";
import { corpusWorkload, floorWorkload, type Workload } from "./lib/workload.ts";

const CORPUS_ROOT = join(REPO_ROOT, "bench", ".corpus");
const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
const SOURCE_ENTRY = join(REPO_ROOT, "src", "cli.ts");
/** Peak RSS is read this long after a session's first complete prompts/list (issue 10). */
const RSS_AFTER_MS = 1000;
/**
 * The source entry uses the start-up index only when asked (in a checkout the parsing code keeps
 * changing); the bench asks, so its cold and warm mean the same as the binary's.
 */
const SOURCE_ENV = { SKILL_CENTRAL_CACHE: "on" };

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

interface Target {
  name: TargetName;
  command: string;
  /** Arguments before the per-run flags (e.g. the entry file and `mcp`). */
  baseArgs: string[];
  /** Flags only our server understands (--no-watch, --debug-timing). */
  extraArgs: string[];
  env: Record<string, string>;
}

/** One column of a round: our target in one mode, or the floor (mode null: it has no cache). */
interface Variant {
  target: Target;
  mode: Mode | null;
}

// ---------------------------------------------------------------------------
// Setup

/** Every HOME the servers get (cold ones per session, warm ones per target and corpus); all removed at the end. */
const homes = new Homes();

function makeTarget(name: TargetName, built: { floor?: Built; ours?: Built }, options: BenchOptions): Target {
  if (name === "floor") return { name, command: built.floor!.path, baseArgs: [], extraArgs: [], env: {} };
  const [command, baseArgs] =
    name === "source" ? [process.execPath, [SOURCE_ENTRY, "mcp"]] : [built.ours!.path, ["mcp"]];
  // Served as an IDE runs it: watching the layers, which costs start-up time too.
  const extraArgs = options.debugTiming ? ["--debug-timing"] : [];
  return { name, command, baseArgs, extraArgs, env: name === "source" ? SOURCE_ENV : {} };
}

function variantsOf(targets: Target[], modes: readonly Mode[]): Variant[] {
  return targets.flatMap((target): Variant[] =>
    target.name === "floor" ? [{ target, mode: null }] : modes.map((mode) => ({ target, mode })),
  );
}

const variantLabel = (v: Variant): string => (v.mode === null ? v.target.name : `${v.target.name} ${v.mode}`);

async function build(options: BenchOptions): Promise<{ floor?: Built; ours?: Built }> {
  const built: { floor?: Built; ours?: Built } = {};
  if (options.targets.includes("floor")) {
    log("compiling the floor…");
    built.floor = await buildFloor();
  }
  if (options.targets.includes("binary")) {
    // Servers start in the corpus folder, so a relative path would name a file there.
    if (options.binary) built.ours = { path: resolve(options.binary), how: `given with --binary ${options.binary}` };
    else {
      log("compiling skill-central…");
      built.ours = await buildOurs();
    }
  }
  return built;
}

async function prepareCorpora(options: BenchOptions): Promise<Corpus[]> {
  const corpora: Corpus[] = [];
  for (const n of options.sizes) {
    const started = performance.now();
    const corpus = await ensureCorpus(CORPUS_ROOT, n, options.seed);
    log(
      `corpus ${n}: ${corpus.reused ? "reused" : `generated in ${Math.round(performance.now() - started)} ms`} (${corpus.dir})`,
    );
    corpora.push(corpus);
  }
  const waited = await waitUntilSettled(corpora.map((c) => c.dir));
  if (waited > 0) log(`waited ${Math.round(waited)} ms for the new files to be old enough for the start-up index`);
  return corpora;
}

// ---------------------------------------------------------------------------
// Measuring

/** The floor's samples are filed under no mode and returned for either. */
const cellKey = (size: number, target: TargetName, mode: Mode | null): string =>
  `${size}/${target}/${target === "floor" ? "-" : mode}`;

class Results {
  private readonly cells = new Map<string, BenchSample[]>();
  private readonly reported = new Set<string>();
  /** Things that are not wrong answers but change what the figures mean (a warm HOME without an index). */
  readonly notes: string[] = [];

  add(size: number, variant: Variant, sample: BenchSample): void {
    const key = cellKey(size, variant.target.name, variant.mode);
    this.cells.set(key, [...(this.cells.get(key) ?? []), sample]);
    this.announce(size, variant, sample);
  }

  get(size: number, target: TargetName, mode: Mode): BenchSample[] {
    return this.cells.get(cellKey(size, target, mode)) ?? [];
  }

  note(line: string): void {
    if (this.notes.includes(line)) return;
    this.notes.push(line);
    log(`NOTE ${line}`);
  }

  /** Print each distinct problem once, as it happens, so a broken server is obvious mid-run. */
  private announce(size: number, variant: Variant, sample: BenchSample): void {
    for (const problem of sample.problems) {
      const key = `${cellKey(size, variant.target.name, variant.mode)}/${problem}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      log(`FAILED ${variantLabel(variant)} at ${size}: ${problem.slice(0, 300)}`);
    }
  }
}

/** Round r starts with a different target, so no target always runs right after another. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * One session of one variant: a cold one in a new HOME removed right after it, a warm one in the
 * HOME kept for its target and corpus, the floor in its shared empty HOME. The harness looks at
 * the HOME's start-up index before and after (after = once the server has exited, as closing the
 * client waits for that).
 */
/**
 * `--store postgres`: one throwaway cluster every session of ours records into, named by each
 * HOME's user config; its password reaches the servers through their environment only (never the
 * results file, which records each target's configured environment).
 */
let teamStore: { url: string; env: Record<string, string>; destroy(): void } | undefined;

function useTeamStore(home: string): Record<string, string> {
  if (teamStore === undefined) return {};
  mkdirSync(join(home, ".skill-central"), { recursive: true });
  writeFileSync(join(home, ".skill-central", "config.yaml"), `store: ${teamStore.url}\n`);
  return teamStore.env;
}

async function runVariant(
  variant: Variant,
  corpus: Corpus,
  workload: Workload,
  plan: SessionPlan,
  floorHome: string,
): Promise<BenchSample> {
  const { target, mode } = variant;
  const home =
    mode === "cold"
      ? homes.fresh(`${target.name}-cold`)
      : mode === "warm"
        ? homes.persistent(`${target.name}-n${corpus.info.n}-warm`)
        : floorHome;
  try {
    const before = indexIn(home);
    const launch: Launch = {
      command: target.command,
      args: [...target.baseArgs, ...target.extraArgs],
      cwd: corpus.dir,
      home,
      env: mode === null ? target.env : { ...target.env, ...useTeamStore(home) },
    };
    const sample = await runSession(launch, workload, plan);
    return mode === null ? sample : { ...sample, index: { before, after: indexIn(home) } };
  } finally {
    if (mode === "cold") homes.release(home);
  }
}

async function runRounds(
  variants: Variant[],
  corpora: Corpus[],
  plan: SessionPlan,
  runs: number,
  results: Results,
): Promise<void> {
  const workloads = new Map(corpora.map((c) => [c, { ours: corpusWorkload(c.info), floor: floorWorkload(c.info) }]));
  const floorHome = homes.fresh("floor");
  const started = performance.now();
  // Round 0 is the warm-up (page cache, first exec; it writes the warm HOMEs' index); its answers are still checked.
  for (let round = 0; round <= runs; round++) {
    for (const corpus of corpora) {
      const n = corpus.info.n;
      const { ours, floor } = workloads.get(corpus) as { ours: Workload; floor: Workload };
      for (const variant of rotated(variants, round)) {
        const sample = await runVariant(variant, corpus, variant.mode === null ? floor : ours, plan, floorHome);
        if (round > 0 || sample.problems.length > 0) results.add(n, variant, sample);
        if (round === 0 && variant.mode === "warm" && sample.index?.after.files === 0) {
          results.note(
            `${variantLabel(variant)} at ${n}: the warm-up session left no start-up index in its HOME, so "warm" sessions start without one`,
          );
        }
      }
    }
    const elapsed = Math.round((performance.now() - started) / 1000);
    log(round === 0 ? `warm-up done (${elapsed} s)` : `round ${round}/${runs} done (${elapsed} s)`);
  }
}

// ---------------------------------------------------------------------------
// Report

function readText(cmd: string[]): string {
  const result = Bun.spawnSync(cmd, { cwd: REPO_ROOT, stdout: "pipe", stderr: "ignore", timeout: 10_000 });
  return result.exitCode === 0 ? result.stdout.toString().trim() : "";
}

function commitLabel(): string {
  const commit = readText(["git", "rev-parse", "--short", "HEAD"]) || "unknown";
  const changed = readText(["git", "status", "--porcelain", "--untracked-files=no"]).split("\n").filter(Boolean).length;
  return changed > 0 ? `${commit} (+${changed} modified files)` : commit;
}

function sdkVersion(): string {
  const pkg = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "server", "package.json");
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

function machine(): string {
  const cores = cpus();
  return `${platform()} ${arch()}, ${cores.length} × ${cores[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GB`;
}

const loadLabel = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

function writeReport(markdown: string, options: BenchOptions, date: string): string[] {
  const name = `${date}-${options.sizes.join("-")}`;
  if (options.quick) {
    const dir = join(OUT_DIR, "results");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `quick-${name}.md`);
    writeFileSync(path, markdown);
    return [path];
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const paths = [join(RESULTS_DIR, `${name}.md`), join(RESULTS_DIR, "latest.md")];
  for (const path of paths) writeFileSync(path, markdown);
  return paths;
}

// ---------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions | null;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (!options) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.binary !== undefined && !existsSync(resolve(options.binary))) {
    process.stderr.write(`bench: --binary: no such file ${resolve(options.binary)}\n`);
    return 2;
  }
  const started = performance.now();
  const loadBefore = loadLabel();
  const built = await build(options);
  const corpora = await prepareCorpora(options);
  const targets = options.targets.map((name) => makeTarget(name, built, options));
  if (options.store === "postgres") {
    const { startPostgres } = await import("../test/helpers/postgres.ts");
    teamStore = startPostgres();
    log(`recording uses into PostgreSQL at ${teamStore.url}`);
  }
  const results = new Results();
  try {
    const plan: SessionPlan = {
      reps: options.reps,
      firstCalls: options.firstCalls,
      calls: options.calls,
      callSeconds: options.callSeconds,
      rssAfterMs: RSS_AFTER_MS,
    };
    await runRounds(variantsOf(targets, options.modes), corpora, plan, options.runs, results);
  } finally {
    await closeAllSessions();
    homes.removeAll();
    teamStore?.destroy();
  }

  const meta: RunMeta = {
    date: new Date().toISOString().slice(0, 10),
    command: ["bun bench/run.ts", ...argv].join(" "),
    commit: commitLabel(),
    bun: Bun.version,
    sdk: sdkVersion(),
    machine: machine(),
    loadBefore,
    loadAfter: loadLabel(),
    binaryHow: built.ours?.how ?? "not run",
    floorHow: built.floor?.how ?? "not run",
    runs: options.runs,
    reps: options.reps,
    firstCalls: options.firstCalls,
    calls: options.calls,
    callSeconds: options.callSeconds,
    rssAfterMs: RSS_AFTER_MS,
    noWatch: Object.fromEntries(
      targets.filter((t) => t.name !== "floor").map((t) => [t.name, t.extraArgs.includes("--no-watch")]),
    ),
    env: Object.fromEntries(targets.filter((t) => Object.keys(t.env).length > 0).map((t) => [t.name, t.env])),
    elapsedSeconds: (performance.now() - started) / 1000,
  };
  const input: ReportInput = {
    meta,
    corpora: corpora.map((c) => c.info),
    targets: options.targets,
    modes: options.modes,
    samples: (n, t, mode) => results.get(n, t, mode),
    notes: results.notes,
  };
  const markdown = renderReport(input);
  process.stdout.write(markdown);
  for (const path of writeReport(markdown, options, meta.date)) log(`wrote ${path}`);
  if (anyFailed(input)) {
    log("FAILED: some answers were wrong; see the FAILED checks section.");
    return 1;
  }
  return 0;
}

// Ctrl-C: stop every server we started (politely, then SIGKILL) and remove every HOME before leaving.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping servers…`);
    void closeAllSessions().finally(() => {
      homes.removeAll();
      process.exit(130);
    });
  });
}
// Any other way out (an uncaught error included): no server outlives the bench, no HOME stays behind.
process.on("exit", () => {
  killAllSessionsNow();
  homes.removeAll();
});

const argv = process.argv.slice(2);
// Agent Skills folders against the peer (bench/folders.ts): its own corpora, targets and report.
process.exit(
  argv[0] === "--folders" ? await (await import("./folders.ts")).benchFolders(argv.slice(1)) : await main(argv),
);
