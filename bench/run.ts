#!/usr/bin/env bun
/**
 * The benchmark: skill-central (source entry and compiled binary) against a bare SDK server
 * (the floor), on generated corpora, in one interleaved session. `bun run bench --help`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { buildFloor, buildOurs, OUT_DIR, REPO_ROOT, type Built } from "./lib/build.ts";
import { ensureCorpus, type Corpus } from "./lib/corpora.ts";
import { parseOptions, USAGE, UsageError, type BenchOptions, type TargetName } from "./lib/options.ts";
import { anyFailed, renderReport, type ReportInput, type RunMeta } from "./lib/report.ts";
import { closeAllSessions, runSession, type Launch, type SessionPlan, type SessionSample } from "./lib/session.ts";
import { corpusWorkload, floorWorkload, type Workload } from "./lib/workload.ts";

const CORPUS_ROOT = join(REPO_ROOT, "bench", ".corpus");
const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
const SOURCE_ENTRY = join(REPO_ROOT, "src", "cli.ts");

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
  home: string;
}

// ---------------------------------------------------------------------------
// Setup

/** Whether a command's --help mentions --no-watch (the flag exists only once file watching does). */
function supportsNoWatch(command: string, baseArgs: string[]): boolean {
  const help = Bun.spawnSync([command, ...baseArgs.filter((a) => a !== "mcp"), "--help"], { stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  return help.stdout.toString().includes("--no-watch");
}

/** Isolated empty HOME folders, removed at the end (or on Ctrl-C). */
const homes: string[] = [];

function removeHomes(): void {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
}

function makeTarget(name: TargetName, built: { floor?: Built; ours?: Built }, options: BenchOptions): Target {
  const home = mkdtempSync(join(tmpdir(), `sc-bench-home-${name}-`));
  homes.push(home);
  if (name === "floor") return { name, command: built.floor!.path, baseArgs: [], extraArgs: [], home };
  const [command, baseArgs] = name === "source" ? [process.execPath, [SOURCE_ENTRY, "mcp"]] : [built.ours!.path, ["mcp"]];
  const extraArgs = [
    ...(supportsNoWatch(command, baseArgs) ? ["--no-watch"] : []),
    ...(options.debugTiming ? ["--debug-timing"] : []),
  ];
  return { name, command, baseArgs, extraArgs, home };
}

function launch(target: Target, corpus: Corpus): Launch {
  return { command: target.command, args: [...target.baseArgs, ...target.extraArgs], cwd: corpus.dir, home: target.home };
}

async function build(options: BenchOptions): Promise<{ floor?: Built; ours?: Built }> {
  const built: { floor?: Built; ours?: Built } = {};
  if (options.targets.includes("floor")) {
    log("compiling the floor…");
    built.floor = await buildFloor();
  }
  if (options.targets.includes("binary")) {
    if (options.binary) built.ours = { path: options.binary, how: `given with --binary ${options.binary}` };
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
    log(`corpus ${n}: ${corpus.reused ? "reused" : `generated in ${Math.round(performance.now() - started)} ms`} (${corpus.dir})`);
    corpora.push(corpus);
  }
  return corpora;
}

// ---------------------------------------------------------------------------
// Measuring

class Results {
  private readonly cells = new Map<string, SessionSample[]>();
  private readonly reported = new Set<string>();

  add(size: number, target: TargetName, sample: SessionSample): void {
    const key = `${size}/${target}`;
    this.cells.set(key, [...(this.cells.get(key) ?? []), sample]);
    this.announce(size, target, sample);
  }

  get(size: number, target: TargetName): SessionSample[] {
    return this.cells.get(`${size}/${target}`) ?? [];
  }

  /** Print each distinct problem once, as it happens, so a broken server is obvious mid-run. */
  announce(size: number, target: TargetName, sample: SessionSample): void {
    for (const problem of sample.problems) {
      const key = `${size}/${target}/${problem}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      log(`FAILED ${target} at ${size}: ${problem.slice(0, 300)}`);
    }
  }
}

/** Round r starts with a different target, so no target always runs right after another. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

async function runRounds(
  targets: Target[],
  corpora: Corpus[],
  plan: SessionPlan,
  runs: number,
  onSample: (size: number, target: TargetName, sample: SessionSample) => void,
): Promise<void> {
  const workloads = new Map<Corpus, Workload>(corpora.map((c) => [c, corpusWorkload(c.info)]));
  const floor = floorWorkload();
  const started = performance.now();
  // Round 0 is the warm-up (page cache, first exec); its answers are still checked.
  for (let round = 0; round <= runs; round++) {
    for (const corpus of corpora) {
      for (const target of rotated(targets, round)) {
        const workload = target.name === "floor" ? floor : (workloads.get(corpus) as Workload);
        const sample = await runSession(launch(target, corpus), workload, plan);
        if (round > 0 || sample.problems.length > 0) onSample(corpus.info.n, target.name, sample);
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

const loadLabel = (): string => loadavg().map((l) => l.toFixed(2)).join(" ");

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
  const started = performance.now();
  const loadBefore = loadLabel();
  const built = await build(options);
  const corpora = await prepareCorpora(options);
  const targets = options.targets.map((name) => makeTarget(name, built, options));
  const results = new Results();
  try {
    const plan: SessionPlan = { reps: options.reps, calls: options.calls, callSeconds: options.callSeconds };
    await runRounds(targets, corpora, plan, options.runs, (size, target, sample) => results.add(size, target, sample));
  } finally {
    await closeAllSessions();
    removeHomes();
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
    calls: options.calls,
    callSeconds: options.callSeconds,
    noWatch: Object.fromEntries(targets.filter((t) => t.name !== "floor").map((t) => [t.name, t.extraArgs.includes("--no-watch")])),
    elapsedSeconds: (performance.now() - started) / 1000,
  };
  const input: ReportInput = { meta, corpora: corpora.map((c) => c.info), targets: options.targets, samples: (n, t) => results.get(n, t) };
  const markdown = renderReport(input);
  process.stdout.write(markdown);
  for (const path of writeReport(markdown, options, meta.date)) log(`wrote ${path}`);
  if (anyFailed(input)) {
    log("FAILED: some answers were wrong; see the FAILED checks section.");
    return 1;
  }
  return 0;
}

// Ctrl-C: stop every server we started before leaving.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping servers…`);
    void closeAllSessions().finally(() => {
      removeHomes();
      process.exit(130);
    });
  });
}

process.exit(await main(process.argv.slice(2)));
